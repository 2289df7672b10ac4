import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { ColumnSchema } from '../../model/columns';
import { parseTrinoSql } from '../trino/trino-parse';

/**
 * What a trino-sql run asks of Athena, by name and text (docs/decisions.md, "Trino recipes"):
 * the tenant's workgroup and Glue database, the per-run tables over each input's exact file,
 * and the CTAS that writes the node's rows as Parquet under the node's own prefix.
 */

/** The tenant's Athena workgroup: its result location, encryption and scan cutoff are enforced there. */
export function athenaWorkgroup(tenantId: string): string {
  return `${config.athena.workgroupPrefix}${tenantId}`;
}

/** The folder of input `index`'s symlink manifest: a table's location, which lists the one file it reads. */
export const manifestFolder = (runPrefix: string, index: number): string => `${runPrefix}in/${index}/`;
/** The CTAS's external location: empty before the query, as Athena requires. */
export const ctasFolder = (runPrefix: string): string => `${runPrefix}out/`;

export { athenaDatabase, runTableName } from './run-prefix';

/** An identifier as Trino quotes it. */
export const trinoIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** A string literal as Trino writes it. */
export const trinoString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * The code's one query without what may follow it (a semicolon, comments): the text the CTAS
 * wraps. The code was checked when it was stored, so it parses; 40-50001 if it no longer does.
 */
export function queryText(code: string): string {
  const parsed = parseTrinoSql(code);
  const statement = parsed.error ? undefined : parsed.statements[0]?.statement();
  if (!statement?.stop)
    throw new AppError('40-50001', { extraDetails: { cause: 'the recipe code is not one Trino query' } });
  // ANTLR counts code points.
  return [...code].slice(statement.start!.start, statement.stop.stop + 1).join('');
}

export interface CtasInput {
  readonly alias: string;
  readonly table: string;
}

/**
 * The CTAS of a node: each alias a CTE over its per-run table, then the code's query as
 * written (its own CTEs shadow the aliases, as in DuckDB), its rows written as Parquet to
 * `location` (an s3:// folder).
 */
export function ctasStatement(options: {
  readonly database: string;
  readonly table: string;
  readonly location: string;
  readonly inputs: readonly CtasInput[];
  readonly code: string;
}): string {
  const db = trinoIdentifier(options.database);
  const ctes = options.inputs.map(
    (input) => `${trinoIdentifier(input.alias)} AS (SELECT * FROM ${db}.${trinoIdentifier(input.table)})`,
  );
  return [
    `CREATE TABLE ${db}.${trinoIdentifier(options.table)}`,
    `WITH (format = 'PARQUET', external_location = ${trinoString(options.location)})`,
    `AS WITH ${ctes.join(',\n')}`,
    `SELECT * FROM (\n${queryText(options.code)}\n)`,
  ].join('\n');
}

const HIVE_SCALARS: Readonly<Record<string, string>> = {
  BOOLEAN: 'boolean',
  TINYINT: 'tinyint',
  SMALLINT: 'smallint',
  INTEGER: 'int',
  BIGINT: 'bigint',
  FLOAT: 'float',
  DOUBLE: 'double',
  VARCHAR: 'string',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  TIMESTAMP_MS: 'timestamp',
  TIMESTAMP_S: 'timestamp',
  BLOB: 'binary',
};

/** A column's DuckDB type as Glue's (Hive) type, or undefined when Athena's Parquet reader has none for it. */
export function hiveType(type: string): string | undefined {
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(type);
  if (decimal) return `decimal(${decimal[1]},${decimal[2]})`;
  if (type.endsWith('[]')) {
    const element = hiveType(type.slice(0, -2));
    return element && `array<${element}>`;
  }
  return HIVE_SCALARS[type];
}

/** The Glue columns of an input: 20-1010 naming the first column Athena cannot read. */
export function glueColumns(columns: readonly ColumnSchema[]): { Name: string; Type: string }[] {
  return columns.map((column) => {
    const type = hiveType(column.type);
    if (!type)
      throw new AppError('20-1010', {
        extraDetails: {
          language: `trino-sql recipes cannot read column ${column.name} of type ${column.type}: Athena has no such type`,
        },
      });
    return { Name: column.name, Type: type };
  });
}
