import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { basename, join } from 'node:path';
import { DuckDBListValue, quotedIdentifier, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { isAppError } from '../errors/app-error';
import type {
  ColumnProfile,
  ColumnQuantiles,
  ColumnSchema,
  SchemaAnalysisDepth,
  SchemaAnalysisResult,
  ValueKinds,
} from '../model/columns';
import { VALUE_KINDS } from '../model/columns';
import { isNumeric, typeFamily } from './column-types';
import { withDuckDb } from './duckdb';
import { engineFailure } from './engine-errors';
import { describeParquet, parquetSource } from './parquet';
import { columnAlerts } from './schema-alerts';
import { jsonSafeSql, parseJsonSafe } from './values';
import { valueKindSql } from './value-kinds';

/**
 * Schema analysis of a Parquet file, in one scan whatever the depth:
 *
 * - SHALLOW: row count, and per column its type and NULL count;
 * - FULL: also distinct count, min and max (JSON-safe, values.ts; none for nested types),
 *   mean, sample standard deviation and quantiles of numeric columns, value kinds of VARCHAR
 *   columns (value-kinds.ts), and alerts (schema-alerts.ts).
 *
 * Distinct counts and quantiles are exact up to EXACT_STATISTICS_MAX_ROWS rows. Above, they
 * are approximate (HyperLogLog, t-digest), which keeps memory bounded on large tables.
 */
export const EXACT_STATISTICS_MAX_ROWS = 1_000_000;

const QUANTILES: readonly (readonly [keyof ColumnQuantiles, number])[] = [
  ['p05', 0.05],
  ['p25', 0.25],
  ['p50', 0.5],
  ['p75', 0.75],
  ['p95', 0.95],
];

export async function analyseParquet(
  path: string,
  depth: SchemaAnalysisDepth,
  options: { readonly workDir?: string; readonly signal?: AbortSignal } = {},
): Promise<SchemaAnalysisResult> {
  try {
    return await withWorkDir(options.workDir, (workDir) =>
      withDuckDb(workDir, (connection) => analyse(connection, path, depth), options.signal),
    );
  } catch (error) {
    throw isAppError(error) ? error : engineFailure(error, [{ path, name: basename(path) }]);
  }
}

/** DuckDB spills into `workDir`, or into a scratch folder of its own when none is given. */
async function withWorkDir<T>(workDir: string | undefined, use: (workDir: string) => Promise<T>): Promise<T> {
  if (workDir) return use(workDir);
  const scratch = await mkdtemp(join(os.tmpdir(), 'schema-analysis-'));
  try {
    return await use(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** What the caller already knows of the file it just wrote: its columns and rows, read again otherwise. */
export interface KnownParquet {
  readonly columns: readonly ColumnSchema[];
  readonly rowCount: number;
}

/**
 * The same analysis on an engine the caller has open (a recipe run analyses its output in the
 * engine that wrote it, instead of starting a second one). A failure is 10-500 without paths.
 */
export async function analyseParquetWith(
  connection: DuckDBConnection,
  path: string,
  depth: SchemaAnalysisDepth,
  known?: KnownParquet,
): Promise<SchemaAnalysisResult> {
  try {
    return await analyse(connection, path, depth, known);
  } catch (error) {
    throw isAppError(error) ? error : engineFailure(error, [{ path, name: basename(path) }]);
  }
}

async function analyse(
  connection: DuckDBConnection,
  path: string,
  depth: SchemaAnalysisDepth,
  known?: KnownParquet,
): Promise<SchemaAnalysisResult> {
  const columns = known?.columns ?? (await describeParquet(connection, path));
  const source = parquetSource(path);
  const rowCount = known?.rowCount ?? toCount(await singleValue(connection, `SELECT count(*) FROM ${source}`));
  const exact = rowCount <= EXACT_STATISTICS_MAX_ROWS;
  const full = depth === 'FULL';

  // Columns are renamed v0, v1… (and their kinds k0, k1…) so that no name of the file can
  // collide with the names of the aggregates.
  const projection = columns.flatMap((column, index) => {
    const name = quotedIdentifier(column.name);
    return full && typeFamily(column.type) === 'text'
      ? [`${name} AS v${index}`, `${valueKindSql(name)} AS k${index}`]
      : [`${name} AS v${index}`];
  });
  const aggregates = columns.flatMap((column, index) =>
    full ? fullAggregates(column, index, exact) : [`count(v${index}) AS n${index}`],
  );
  const reader = await connection.runAndReadAll(
    `SELECT ${aggregates.join(', ')} FROM (SELECT ${projection.join(', ')} FROM ${source})`,
  );
  const row = reader.getRowObjects()[0] ?? {};

  const profiles = columns.map((column, index) => {
    const nullCount = rowCount - toCount(row[`n${index}`] ?? null);
    const shallow: ColumnProfile = {
      name: column.name,
      type: column.type,
      null_count: nullCount,
      null_ratio: rowCount === 0 ? 0 : nullCount / rowCount,
    };
    return full ? { ...shallow, ...fullProfile(column, index, row) } : shallow;
  });
  const alerts = full ? profiles.flatMap((profile) => columnAlerts(profile, rowCount, exact)) : [];
  return { depth, row_count: rowCount, columns: profiles, alerts };
}

function fullAggregates(column: ColumnSchema, index: number, exact: boolean): string[] {
  const value = `v${index}`;
  const aggregates = [
    `count(${value}) AS n${index}`,
    exact ? `count(DISTINCT ${value}) AS d${index}` : `approx_count_distinct(${value}) AS d${index}`,
  ];
  if (typeFamily(column.type) !== 'nested') {
    aggregates.push(
      `${jsonSafeSql(`min(${value})`, column.type)} AS lo${index}`,
      `${jsonSafeSql(`max(${value})`, column.type)} AS hi${index}`,
    );
  }
  if (isNumeric(column.type)) {
    const fractions = QUANTILES.map(([, fraction]) => fraction).join(', ');
    aggregates.push(
      `avg(${value}::DOUBLE) AS mean${index}`,
      `stddev_samp(${value}::DOUBLE) AS std${index}`,
      `${exact ? 'quantile_cont' : 'approx_quantile'}(${value}::DOUBLE, [${fractions}]) AS q${index}`,
    );
  }
  if (typeFamily(column.type) === 'text') {
    // Not count_if: it answers NULL rather than 0 when nothing matches.
    aggregates.push(...VALUE_KINDS.map((kind) => `count(*) FILTER (WHERE k${index} = '${kind}') AS ${kind}${index}`));
  }
  return aggregates;
}

type Row = Readonly<Record<string, DuckDBValue>>;

function fullProfile(
  column: ColumnSchema,
  index: number,
  row: Row,
): Omit<ColumnProfile, 'name' | 'type' | 'null_count' | 'null_ratio'> {
  const cell = (alias: string) => row[`${alias}${index}`] ?? null;
  const profile = {
    distinct_count: toCount(cell('d')),
    min: parseJsonSafe(cell('lo')),
    max: parseJsonSafe(cell('hi')),
    mean: toStatistic(cell('mean')),
    std: toStatistic(cell('std')),
  };
  if (isNumeric(column.type)) return { ...profile, quantiles: toQuantiles(cell('q')) };
  if (typeFamily(column.type) === 'text') {
    return {
      ...profile,
      value_kinds: Object.fromEntries(VALUE_KINDS.map((kind) => [kind, toCount(cell(kind))])) as ValueKinds,
    };
  }
  return profile;
}

async function singleValue(connection: DuckDBConnection, sql: string): Promise<DuckDBValue> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRows()[0]?.[0] ?? null;
}

function toCount(value: DuckDBValue): number {
  if (typeof value === 'bigint' || typeof value === 'number') return Number(value);
  throw new TypeError(`Expected a count, got ${String(value)}`);
}

/** A finite number, or null (no values, or NaN and infinities among them). */
function toStatistic(value: DuckDBValue): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function toQuantiles(value: DuckDBValue): ColumnQuantiles {
  const items = value instanceof DuckDBListValue ? value.items : [];
  return Object.fromEntries(
    QUANTILES.map(([key], position) => [key, toStatistic(items[position] ?? null)]),
  ) as ColumnQuantiles;
}
