/**
 * The SQL the Snowflake fake understands, and the errors Snowflake gives for the rest: one
 * SELECT of columns, CURRENT_WAREHOUSE/DATABASE/SCHEMA/ROLE() and literals, optionally FROM
 * one table named with up to three parts, optionally with LIMIT; and SHOW TERSE OBJECTS
 * [LIKE] [IN ACCOUNT | DATABASE [d] | SCHEMA [d.]s] [LIMIT]. Identifiers resolve as in
 * Snowflake (unquoted ones upper-cased). A table with `roles` exists only for those roles.
 * Anything else is a syntax error (001003); unknown objects are 002003 (a database 002043),
 * unknown columns 000904, a table without a current database 090105.
 */

/** Snowflake's wire type names (rowtype[].type). */
export type SnowflakeType =
  | 'fixed'
  | 'real'
  | 'text'
  | 'boolean'
  | 'date'
  | 'time'
  | 'timestamp_ntz'
  | 'timestamp_ltz'
  | 'timestamp_tz'
  | 'variant'
  | 'binary';

export interface FakeColumn {
  readonly name: string;
  readonly type: SnowflakeType;
  readonly scale?: number;
  readonly precision?: number;
  readonly nullable?: boolean;
}

/** A wire row: each value as Snowflake's JSON rowset carries it (a string) or null. */
export type WireRow = readonly (string | null)[];

/** A table, or a query's result: rows made on demand, so a large one takes no memory. */
export interface FakeTable {
  /** TABLE (default) or VIEW, as SHOW OBJECTS names it. */
  readonly kind?: 'TABLE' | 'VIEW';
  /** The roles that may see the table; every role when absent. */
  readonly roles?: readonly string[];
  readonly columns: readonly FakeColumn[];
  readonly rowCount: number;
  row(index: number): WireRow;
}

export function tableOf(columns: readonly FakeColumn[], rows: readonly WireRow[]): FakeTable {
  return { columns, rowCount: rows.length, row: (index) => rows[index]! };
}

/** database → schema → table, names as stored (upper case unless created quoted). */
export type FakeCatalog = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, FakeTable>>>>>>;

export interface SessionState {
  readonly warehouse: string | null;
  readonly database: string | null;
  readonly schema: string | null;
  readonly role: string;
}

/** A Snowflake error as its JSON answer carries it. */
export class SnowflakeSqlError extends Error {
  constructor(
    readonly code: string,
    readonly sqlState: string,
    message: string,
  ) {
    super(message);
  }
}

export interface PlannedQuery {
  readonly table: FakeTable;
  /** The table read, fully qualified, when the query reads one: execution then needs a warehouse. */
  readonly source: string | undefined;
}

type Token = {
  readonly kind: 'word' | 'quoted' | 'number' | 'string' | 'symbol';
  readonly text: string;
  readonly position: number;
};

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s+|--[^\n]*|([A-Za-z_][A-Za-z0-9_$]*)|"((?:[^"]|"")*)"|(\d+(?:\.\d+)?)|'((?:[^']|'')*)'|([(),.*;])|(.)/gy;
  for (let match = pattern.exec(sql); match !== null && match[0] !== ''; match = pattern.exec(sql)) {
    const position = match.index + 1;
    if (match[1] !== undefined) tokens.push({ kind: 'word', text: match[1], position });
    else if (match[2] !== undefined) tokens.push({ kind: 'quoted', text: match[2].replace(/""/g, '"'), position });
    else if (match[3] !== undefined) tokens.push({ kind: 'number', text: match[3], position });
    else if (match[4] !== undefined) tokens.push({ kind: 'string', text: match[4].replace(/''/g, "'"), position });
    else if (match[5] !== undefined) tokens.push({ kind: 'symbol', text: match[5], position });
    else if (match[6] !== undefined) tokens.push({ kind: 'symbol', text: match[6], position });
  }
  return tokens;
}

function syntaxError(token: Token | undefined): SnowflakeSqlError {
  if (!token)
    return new SnowflakeSqlError(
      '001003',
      '42000',
      'SQL compilation error:\nsyntax error line 1 at position 0 unexpected end of input.',
    );
  return new SnowflakeSqlError(
    '001003',
    '42000',
    `SQL compilation error:\nsyntax error line 1 at position ${token.position - 1} unexpected '${token.text}'.`,
  );
}

const KEYWORDS = new Set(['SELECT', 'FROM', 'LIMIT', 'AS', 'WHERE', 'ORDER', 'GROUP']);
const SESSION_FUNCTIONS = ['CURRENT_WAREHOUSE', 'CURRENT_DATABASE', 'CURRENT_SCHEMA', 'CURRENT_ROLE'] as const;

type Item =
  | { readonly kind: 'star' }
  | { readonly kind: 'column'; readonly name: string; readonly alias?: string }
  | { readonly kind: 'value'; readonly column: FakeColumn; readonly value: string | null };

class Parser {
  private index = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.index];
  }
  next(): Token | undefined {
    return this.tokens[this.index++];
  }
  isWord(text: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text.toUpperCase() === text;
  }
  expectSymbol(text: string): void {
    const token = this.next();
    if (token?.kind !== 'symbol' || token.text !== text) throw syntaxError(token);
  }
  identifier(): string {
    const token = this.next();
    if (token?.kind === 'quoted') return token.text;
    if (token?.kind === 'word' && !KEYWORDS.has(token.text.toUpperCase())) return token.text.toUpperCase();
    throw syntaxError(token);
  }
  alias(): string | undefined {
    if (this.isWord('AS')) {
      this.next();
      return this.identifier();
    }
    const token = this.peek();
    return token && (token.kind === 'quoted' || (token.kind === 'word' && !KEYWORDS.has(token.text.toUpperCase())))
      ? this.identifier()
      : undefined;
  }
  item(session: SessionState): Item {
    const token = this.peek();
    if (token?.kind === 'symbol' && token.text === '*') {
      this.next();
      return { kind: 'star' };
    }
    if (token?.kind === 'number' || token?.kind === 'string') {
      this.next();
      const alias = this.alias();
      const number = token.kind === 'number';
      const column: FakeColumn = {
        name: alias ?? token.text.toUpperCase(),
        type: number ? 'fixed' : 'text',
        scale: 0,
        precision: number ? token.text.length : undefined,
      };
      return { kind: 'value', column, value: token.text };
    }
    const name = this.identifier();
    const session_function = SESSION_FUNCTIONS.find((candidate) => candidate === name);
    if (this.peek()?.text === '(') {
      if (!session_function)
        throw new SnowflakeSqlError('002140', '42601', `SQL compilation error:\nUnknown function ${name}`);
      this.expectSymbol('(');
      this.expectSymbol(')');
      const value = {
        CURRENT_WAREHOUSE: session.warehouse,
        CURRENT_DATABASE: session.database,
        CURRENT_SCHEMA: session.schema,
        CURRENT_ROLE: session.role,
      }[session_function];
      return { kind: 'value', column: { name: this.alias() ?? `${name}()`, type: 'text', nullable: true }, value };
    }
    return { kind: 'column', name, alias: this.alias() };
  }
}

function resolveTable(
  parts: readonly string[],
  session: SessionState,
  catalog: FakeCatalog,
): { qualified: string; table: FakeTable } {
  const shown = parts.join('.');
  let database: string | null;
  let schema: string | null;
  if (parts.length === 3) [database, schema] = parts as [string, string, string];
  else if (parts.length === 2) [database, schema] = [session.database, parts[0]!];
  else [database, schema] = [session.database, session.schema];
  if (database === null) {
    throw new SnowflakeSqlError(
      '090105',
      '22000',
      "Cannot perform SELECT. This session does not have a current database. Call 'USE DATABASE', or use a qualified name.",
    );
  }
  if (schema === null) {
    throw new SnowflakeSqlError(
      '090106',
      '22000',
      "Cannot perform SELECT. This session does not have a current schema. Call 'USE SCHEMA', or use a qualified name.",
    );
  }
  const found = catalog[database]?.[schema]?.[parts.at(-1)!];
  const table = found && visibleTo(found, session) ? found : undefined;
  if (!table)
    throw new SnowflakeSqlError(
      '002003',
      '42S02',
      `SQL compilation error:\nObject '${parts.length === 3 ? shown : `${database}.${schema}.${parts.at(-1)}`}' does not exist or not authorized.`,
    );
  return { qualified: `${database}.${schema}.${parts.at(-1)}`, table };
}

const visibleTo = (table: FakeTable, session: SessionState): boolean =>
  !table.roles || table.roles.includes(session.role);

const notAuthorized = (kind: 'Database' | 'Schema', name: string): SnowflakeSqlError =>
  new SnowflakeSqlError(
    kind === 'Database' ? '002043' : '002003',
    '02000',
    `SQL compilation error:\n${kind} '${name}' does not exist or not authorized.`,
  );

/** A LIKE pattern of SHOW: case-insensitive, % and _ wildcards, backslash escapes. */
function likeRegExp(pattern: string): RegExp {
  const source = pattern.replace(
    /\\(.)|([%_])|([^%_\\])/g,
    (_, escaped: string | undefined, wildcard: string | undefined, plain: string | undefined) =>
      wildcard === '%'
        ? '.*'
        : wildcard === '_'
          ? '.'
          : (escaped ?? plain ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  return new RegExp(`^${source}$`, 'is');
}

/** SHOW TERSE OBJECTS: the tables and views the session's role sees, by database, schema and name. */
function planShow(parser: Parser, session: SessionState, catalog: FakeCatalog): PlannedQuery {
  for (const word of ['SHOW', 'TERSE', 'OBJECTS']) {
    if (!parser.isWord(word)) throw syntaxError(parser.peek());
    parser.next();
  }
  let like: RegExp | undefined;
  if (parser.isWord('LIKE')) {
    parser.next();
    const pattern = parser.next();
    if (pattern?.kind !== 'string') throw syntaxError(pattern);
    like = likeRegExp(pattern.text);
  }
  let databases = Object.keys(catalog);
  let schemaName: string | undefined;
  if (parser.isWord('IN')) {
    parser.next();
    const scope = parser.next()?.text.toUpperCase();
    const next = parser.peek();
    const named =
      next !== undefined && (next.kind === 'quoted' || (next.kind === 'word' && next.text.toUpperCase() !== 'LIMIT'));
    if (scope === 'DATABASE' && named) databases = [parser.identifier()];
    else if (scope === 'DATABASE' && session.database) databases = [session.database];
    else if (scope === 'SCHEMA') {
      const parts = named ? [parser.identifier()] : [];
      if (parser.peek()?.text === '.') {
        parser.next();
        parts.push(parser.identifier());
      }
      const database = parts.length === 2 ? parts[0]! : session.database;
      schemaName = parts.at(-1) ?? session.schema ?? undefined;
      if (database === null || schemaName === undefined)
        throw new SnowflakeSqlError(
          '090105',
          '22000',
          'Cannot perform SHOW. This session does not have a current database.',
        );
      databases = [database];
      if (!catalog[database]?.[schemaName]) throw notAuthorized('Schema', `${database}.${schemaName}`);
    } else if (scope !== 'ACCOUNT' && scope !== 'DATABASE') throw syntaxError(parser.peek());
  }
  let limit = Number.POSITIVE_INFINITY;
  if (parser.isWord('LIMIT')) {
    parser.next();
    limit = Number(parser.next()?.text);
  }
  if (parser.peek() !== undefined) throw syntaxError(parser.peek());
  const rows: string[][] = [];
  for (const database of databases.sort()) {
    const schemas = catalog[database];
    if (!schemas) throw notAuthorized('Database', database);
    for (const schema of Object.keys(schemas).sort()) {
      if (schemaName !== undefined && schema !== schemaName) continue;
      for (const [name, table] of Object.entries(schemas[schema]!).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (visibleTo(table, session) && (!like || like.test(name)))
          rows.push(['1704103200.000000000', name, table.kind ?? 'TABLE', database, schema]);
      }
    }
  }
  const shown = rows.slice(0, limit);
  const text = (name: string): FakeColumn => ({ name, type: 'text' });
  return {
    source: undefined,
    table: tableOf(
      [
        { name: 'created_on', type: 'timestamp_ltz', scale: 9 },
        ...['name', 'kind', 'database_name', 'schema_name'].map(text),
      ],
      shown,
    ),
  };
}

/** Compiles one statement for a session: its result, lazily, or the error Snowflake gives. */
export function planQuery(sql: string, session: SessionState, catalog: FakeCatalog): PlannedQuery {
  const parser = new Parser(tokenize(sql));
  if (parser.isWord('SHOW')) return planShow(parser, session, catalog);
  if (!parser.isWord('SELECT')) throw syntaxError(parser.peek());
  parser.next();
  const items: Item[] = [parser.item(session)];
  while (parser.peek()?.text === ',') {
    parser.next();
    items.push(parser.item(session));
  }
  let from: { qualified: string; table: FakeTable } | undefined;
  if (parser.isWord('FROM')) {
    parser.next();
    const parts = [parser.identifier()];
    while (parser.peek()?.text === '.' && parts.length < 3) {
      parser.next();
      parts.push(parser.identifier());
    }
    from = resolveTable(parts, session, catalog);
  }
  let limit = Number.POSITIVE_INFINITY;
  if (parser.isWord('LIMIT')) {
    parser.next();
    const token = parser.next();
    if (token?.kind !== 'number') throw syntaxError(token);
    limit = Number(token.text);
  }
  if (parser.peek()?.text === ';') parser.next();
  if (parser.peek() !== undefined) throw syntaxError(parser.peek());

  const source = from?.table;
  const picks: { column: FakeColumn; value: (index: number) => string | null }[] = [];
  for (const item of items) {
    if (item.kind === 'value') picks.push({ column: item.column, value: () => item.value });
    else if (item.kind === 'star') {
      if (!source) throw new SnowflakeSqlError('001010', '42601', 'SQL compilation error:\nSELECT with no columns');
      source.columns.forEach((column, position) =>
        picks.push({ column, value: (index) => source.row(index)[position] ?? null }),
      );
    } else {
      const position = source?.columns.findIndex((column) => column.name === item.name) ?? -1;
      if (!source || position < 0)
        throw new SnowflakeSqlError(
          '000904',
          '42000',
          `SQL compilation error: error line 1 at position 7\ninvalid identifier '${item.name}'`,
        );
      picks.push({
        column: { ...source.columns[position]!, name: item.alias ?? item.name },
        value: (index) => source.row(index)[position] ?? null,
      });
    }
  }
  const rowCount = Math.min(source ? source.rowCount : 1, limit);
  return {
    source: from?.qualified,
    table: {
      columns: picks.map((pick) => pick.column),
      rowCount,
      row: (index) => picks.map((pick) => pick.value(index)),
    },
  };
}
