/**
 * The writing statements of the Snowflake fake, as the service's warehouse writer sends them:
 * CREATE TABLE IF NOT EXISTS <table> ("column" TYPE, ...), BEGIN [TRANSACTION], DELETE FROM
 * <table>, INSERT INTO <table> ("column", ...) VALUES (?, ...), (?, ...) with positional
 * bindings, COMMIT and ROLLBACK. Tables are named by one unquoted identifier in the session's
 * database and schema (upper-cased, as Snowflake resolves it). Outside a transaction each
 * statement commits at once; inside one, changes are seen by the session only until COMMIT,
 * and ROLLBACK or the end of the session drops them. A DDL statement commits an open
 * transaction first, as Snowflake does. Rows are kept as the bound text, for tests to read.
 */
import {
  SnowflakeSqlError,
  tableOf,
  type FakeColumn,
  type FakeTable,
  type SessionState,
  type SnowflakeType,
  type WireRow,
} from './snowflake-sql';

/** A positional binding as snowflake-sdk sends it: `{ "1": { type: "FIXED", value: "1" } }`. */
export type Bindings = Readonly<Record<string, { readonly type?: string; readonly value?: unknown }>>;

interface WrittenTable {
  readonly columns: readonly FakeColumn[];
  rows: WireRow[];
}

const WIRE_TYPES: readonly [RegExp, SnowflakeType][] = [
  [/^(NUMBER|DECIMAL|NUMERIC|INT|INTEGER|BIGINT)\b/, 'fixed'],
  [/^(FLOAT|DOUBLE|REAL)\b/, 'real'],
  [/^(VARCHAR|STRING|TEXT)\b/, 'text'],
  [/^BOOLEAN$/, 'boolean'],
  [/^DATE$/, 'date'],
  [/^TIME$/, 'time'],
  [/^TIMESTAMP_NTZ$/, 'timestamp_ntz'],
  [/^TIMESTAMP_TZ$/, 'timestamp_tz'],
  [/^BINARY$/, 'binary'],
];

const statusResult = (text: string): FakeTable => tableOf([{ name: 'status', type: 'text' }], [[text]]);
const countResult = (name: string, count: number): FakeTable => tableOf([{ name, type: 'fixed' }], [[String(count)]]);
const syntaxError = (sql: string) =>
  new SnowflakeSqlError(
    '001003',
    '42000',
    `SQL compilation error:\nsyntax error line 1 at position 0 unexpected '${sql.slice(0, 20)}'.`,
  );

/** A quoted column list: `"a", "b ""c"""`. */
function quotedNames(list: string): string[] | undefined {
  const names: string[] = [];
  const pattern = /\s*"((?:[^"]|"")*)"\s*(?:,|$)/y;
  for (let match = pattern.exec(list); match; match = pattern.exec(list)) {
    names.push(match[1]!.replaceAll('""', '"'));
    if (pattern.lastIndex >= list.length) return names;
  }
  return undefined;
}

export class FakeWrites {
  /** "DATABASE.SCHEMA.TABLE" → the committed table. */
  private readonly tables = new Map<string, WrittenTable>();
  /** Session token → its open transaction's copies of the tables it changed. */
  private readonly transactions = new Map<string, Map<string, WrittenTable>>();
  /** INSERTs that may still succeed before every further one fails; undefined: no limit. */
  private insertsLeft: number | undefined;

  /** The committed rows of DATABASE.SCHEMA.TABLE (as bound), or undefined when it does not exist. */
  rows(qualified: string): readonly WireRow[] | undefined {
    return this.tables.get(qualified)?.rows;
  }

  /** The committed table's columns. */
  columns(qualified: string): readonly FakeColumn[] | undefined {
    return this.tables.get(qualified)?.columns;
  }

  /** From now, `count` INSERT statements succeed and every later one fails as a bad value does (100038); undefined lifts it. */
  failInsertsAfter(count: number | undefined): void {
    this.insertsLeft = count;
  }

  /** Drops what an ended session left uncommitted. */
  endSession(token: string): void {
    this.transactions.delete(token);
  }

  /** Runs `sql` when it is a writing statement; undefined when it is none (a query for the SELECT planner). */
  run(sql: string, bindings: Bindings | undefined, token: string, session: SessionState): FakeTable | undefined {
    const text = sql.trim().replace(/;$/, '');
    if (/^BEGIN(\s+TRANSACTION)?$/i.test(text)) {
      if (!this.transactions.has(token)) this.transactions.set(token, new Map());
      return statusResult('Statement executed successfully.');
    }
    if (/^COMMIT$/i.test(text)) {
      this.commit(token);
      return statusResult('Statement executed successfully.');
    }
    if (/^ROLLBACK$/i.test(text)) {
      this.transactions.delete(token);
      return statusResult('Statement executed successfully.');
    }
    const create = /^CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\(([\s\S]*)\)$/i.exec(text);
    if (create) return this.create(this.qualified(create[1]!, session), create[2]!, token, text);
    const remove = /^DELETE\s+FROM\s+([A-Za-z_][A-Za-z0-9_$]*)$/i.exec(text);
    if (remove) {
      const table = this.writable(this.qualified(remove[1]!, session), token, session);
      const count = table.rows.length;
      table.rows = [];
      return countResult('number of rows deleted', count);
    }
    const insert = /^INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\(([^)]*)\)\s*VALUES\s*([\s\S]+)$/i.exec(text);
    if (insert)
      return this.insert(
        this.qualified(insert[1]!, session),
        insert[2]!,
        insert[3]!,
        bindings ?? {},
        token,
        session,
        text,
      );
    return undefined;
  }

  private qualified(name: string, session: SessionState): string {
    if (session.database === null || session.schema === null) {
      throw new SnowflakeSqlError(
        '090105',
        '22000',
        "Cannot perform operation. This session does not have a current database. Call 'USE DATABASE', or use a qualified name.",
      );
    }
    return `${session.database}.${session.schema}.${name.toUpperCase()}`;
  }

  private create(qualified: string, definition: string, token: string, sql: string): FakeTable {
    this.commit(token);
    const name = qualified.split('.').at(-1)!;
    if (this.tables.has(qualified)) return statusResult(`${name} already exists, statement succeeded.`);
    const columns: FakeColumn[] = [];
    const pattern = /\s*"((?:[^"]|"")*)"\s+([A-Z_]+(?:\(\s*\d+\s*(?:,\s*\d+\s*)?\))?)\s*(?:,|$)/iy;
    for (let match = pattern.exec(definition); match; match = pattern.exec(definition)) {
      const type = WIRE_TYPES.find(([declared]) => declared.test(match![2]!.toUpperCase()))?.[1];
      if (!type)
        throw new SnowflakeSqlError('002040', '42601', `SQL compilation error:\nUnsupported data type '${match[2]}'.`);
      const scale = /,\s*(\d+)\s*\)$/.exec(match[2]!)?.[1];
      columns.push({
        name: match[1]!.replaceAll('""', '"'),
        type,
        ...(scale === undefined ? {} : { scale: Number(scale) }),
      });
      if (pattern.lastIndex >= definition.length) break;
    }
    if (columns.length === 0 || pattern.lastIndex < definition.trimEnd().length) throw syntaxError(sql);
    this.tables.set(qualified, { columns, rows: [] });
    return statusResult(`Table ${name} successfully created.`);
  }

  /** The session's view of a table it may change: its transaction's copy, or the committed table. */
  private writable(qualified: string, token: string, session: SessionState): WrittenTable {
    if (session.warehouse === null) {
      throw new SnowflakeSqlError(
        '000606',
        '57P03',
        "No active warehouse selected in the current session.  Select an active warehouse with the 'use warehouse' command.\n",
      );
    }
    const committed = this.tables.get(qualified);
    if (!committed)
      throw new SnowflakeSqlError(
        '002003',
        '42S02',
        `SQL compilation error:\nTable '${qualified}' does not exist or not authorized.`,
      );
    const transaction = this.transactions.get(token);
    if (!transaction) return committed;
    const copy = transaction.get(qualified) ?? { columns: committed.columns, rows: [...committed.rows] };
    transaction.set(qualified, copy);
    return copy;
  }

  private insert(
    qualified: string,
    list: string,
    values: string,
    bindings: Bindings,
    token: string,
    session: SessionState,
    sql: string,
  ): FakeTable {
    const table = this.writable(qualified, token, session);
    const names = quotedNames(list);
    if (!names) throw syntaxError(sql);
    const positions = names.map((name) => {
      const index = table.columns.findIndex((column) => column.name === name);
      if (index === -1)
        throw new SnowflakeSqlError(
          '000904',
          '42000',
          `SQL compilation error: error line 1 at position 0\ninvalid identifier '"${name}"'`,
        );
      return index;
    });
    const tuple = `\\(\\s*\\?(?:\\s*,\\s*\\?){${names.length - 1}}\\s*\\)`;
    if (!new RegExp(`^${tuple}(?:\\s*,\\s*${tuple})*$`).test(values.trim())) throw syntaxError(sql);
    const count = (values.match(/\?/g) ?? []).length / names.length;
    if (this.insertsLeft === 0) throw new SnowflakeSqlError('100038', '22018', "Numeric value 'n/a' is not recognized");
    if (this.insertsLeft !== undefined) this.insertsLeft -= 1;
    const added: WireRow[] = [];
    for (let row = 0; row < count; row += 1) {
      const wire: (string | null)[] = table.columns.map(() => null);
      positions.forEach((position, column) => {
        const bound = bindings[String(row * names.length + column + 1)];
        if (!bound) throw new SnowflakeSqlError('002049', '07002', 'SQL compilation error: Bind variable ? not set.');
        wire[position] = bound.value === null || bound.value === undefined ? null : String(bound.value);
      });
      added.push(wire);
    }
    table.rows.push(...added);
    return countResult('number of rows inserted', count);
  }

  private commit(token: string): void {
    const transaction = this.transactions.get(token);
    this.transactions.delete(token);
    for (const [qualified, table] of transaction ?? []) this.tables.set(qualified, table);
  }
}
