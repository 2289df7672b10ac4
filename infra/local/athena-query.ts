/**
 * How the local Athena (athena.ts) reads and runs a CTAS: the statement parsed by Trino's own
 * grammar (shared/engine/trino/trino-parse.ts), its tables found in the local Glue catalogue,
 * then DuckDB executing the query over the very Parquet files the tables' manifests list.
 * DuckDB is not Trino: what it would answer differently is refused (TRINO_ONLY, below, and
 * docs/recipe-languages.md, "On the local twin"), never answered.
 */
import { PropertiesContext, CreateTableAsSelectContext } from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';
import { parseTrinoSql } from '../../shared/engine/trino/trino-parse';
import { identifierName, readTrinoQuery } from '../../shared/engine/trino/trino-tree';

/** A query the stand-in refuses or cannot run: Athena's words, its error category (2: the user's) and type. */
export class AthenaQueryError extends Error {
  constructor(
    message: string,
    readonly category: 1 | 2 | 3 = 2,
  ) {
    super(message);
  }
}

export interface ParsedCtas {
  /** The new table: database (or the context's) and name. */
  readonly database: string | undefined;
  readonly table: string;
  readonly properties: Readonly<Record<string, string>>;
  /** The query's text, as Trino wrote it. */
  readonly query: string;
  /** Tables the query reads, as [database or undefined, table]. */
  readonly reads: readonly (readonly [string | undefined, string])[];
  readonly functions: readonly string[];
}

/**
 * Trino functions DuckDB has under the same name with another answer (measured with the pinned
 * DuckDB, docs/decisions.md "Trino recipes"): refused, not run.
 */
export const TRINO_ONLY_FUNCTIONS: Readonly<Record<string, string>> = {
  date_trunc: 'DuckDB truncates a DATE to a TIMESTAMP; Trino keeps a DATE',
  concat: "DuckDB skips NULL arguments; Trino's concat is NULL when one is (use ||)",
  date_add: 'DuckDB takes (date, interval); Trino takes (unit, value, date)',
  date_diff: 'DuckDB counts unit boundaries crossed; Trino counts whole units',
  date_format: "DuckDB has no MySQL-style date_format; Trino's patterns differ from strftime",
  format_datetime: 'Joda-Time patterns have no DuckDB equivalent',
  date_parse: 'DuckDB has no MySQL-style date_parse',
  split: 'DuckDB has no limit argument and differs on empty strings',
};

/** Constructs of the query text whose DuckDB answer differs from Trino's. */
const TRINO_ONLY_SYNTAX: readonly (readonly [RegExp, string])[] = [
  [/\bINTERVAL\b/i, 'DATE plus an INTERVAL is a TIMESTAMP in DuckDB and a DATE in Trino'],
  [
    /\b(TRY_)?CAST\s*\([^()]*\bAS\s+(TINYINT|SMALLINT|INTEGER|INT|BIGINT)\s*\)/i,
    'DuckDB rounds a fraction cast to an integer half to even; Trino rounds half away from zero',
  ],
];

function unsupported(what: string): AthenaQueryError {
  return new AthenaQueryError(
    `NOT_SUPPORTED: the local Athena cannot run ${what} as Athena does (docs/recipe-languages.md)`,
  );
}

/** The CTAS as the stand-in runs it; an AthenaQueryError for anything else or anything it would answer differently. */
export function parseCtas(text: string): ParsedCtas {
  const parsed = parseTrinoSql(text);
  if (parsed.error) throw new AthenaQueryError(`SYNTAX_ERROR: line ${parsed.line}:${parsed.column}: ${parsed.message}`);
  const statement = parsed.statements.length === 1 ? parsed.statements[0]!.statement() : undefined;
  if (!(statement instanceof CreateTableAsSelectContext))
    throw new AthenaQueryError('NOT_SUPPORTED: the local Athena runs CREATE TABLE AS SELECT statements only');
  const name = statement.tableNameCreate().identifier().map(identifierName);
  if (name.length > 2) throw new AthenaQueryError('NOT_SUPPORTED: catalogues other than AwsDataCatalog');
  const properties: Record<string, string> = {};
  const list = statement.children?.find((child): child is PropertiesContext => child instanceof PropertiesContext);
  for (const property of list?.propertyAssignments().property() ?? []) {
    const value = property.propertyValue().getText();
    properties[identifierName(property.identifier()).toLowerCase()] = value
      .replace(/^'(.*)'$/s, '$1')
      .replace(/''/g, "'");
  }
  const root = statement.rootQuery();
  if (!root?.stop || root.withFunction()) throw new AthenaQueryError('NOT_SUPPORTED: inline functions');
  const query = [...text].slice(root.start!.start, root.stop.stop + 1).join('');
  const tree = readTrinoQuery(root);
  const reads = tree.tables.map(({ name: table }) => {
    const parts = table.split('.');
    if (parts.length > 2) {
      if (parts[0]!.toLowerCase() !== 'awsdatacatalog')
        throw new AthenaQueryError(`CATALOG_NOT_FOUND: Catalog '${parts[0]}' does not exist`);
      parts.shift();
    }
    return parts.length === 2 ? ([parts[0]!, parts[1]!] as const) : ([undefined, parts[0]!] as const);
  });
  for (const fn of tree.functions) {
    const why = TRINO_ONLY_FUNCTIONS[fn.name];
    if (why) throw unsupported(`${fn.name}(): ${why}`);
  }
  for (const [pattern, why] of TRINO_ONLY_SYNTAX) if (pattern.test(query)) throw unsupported(why);
  return {
    database: name.length === 2 ? name[0] : undefined,
    table: name[name.length - 1]!,
    properties,
    query,
    reads,
    functions: tree.functions.map((fn) => fn.name),
  };
}
