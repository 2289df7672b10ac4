import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { AppError, isAppError } from '../errors/app-error';
import type { ColumnSchema, DataValue } from '../model/columns';
import type { QualityRuleDefinition, QualityRuleOutcome } from '../model/quality-rule';
import { typeFamily } from './column-types';
import { createSandboxedDuckDb, withEngine } from './duckdb';
import { engineFailure } from './engine-errors';
import { engineBudget } from './limits';
import { describeParquet, parquetSource } from './parquet';
import { jsonSafeSql, parseJsonSafe, readJsonSafeRows } from './values';

/**
 * Data-quality rules checked over a version's Parquet (docs/data-quality.md), as an engine
 * process runs them (isolation/tasks.ts): the rules of a table are the tenant's own SQL
 * (custom_sql) and values (patterns, accepted values), so they run in a sandboxed engine that
 * may read only the version's folder, sized as the import's engine is, in a process its
 * parent bounds in memory and time as it bounds a recipe run.
 *
 * The rules that are a predicate over rows (not_null, accepted_values, range, pattern) or a
 * measure of the whole table (row_count_between, freshness) are counted together in one scan
 * of the file: one aggregate query with a `count(*) FILTER (WHERE ...)` per rule. unique (a
 * grouping) and custom_sql (the tenant's own query) are a query each. A rule with failing
 * rows then reads up to SAMPLE_ROWS of them. A rule that cannot be checked (a column the
 * version lacks, an assertion that does not run) fails with the reason as its error; should
 * the shared scan fail (a predicate that fails at run time, such as a text compared with a
 * number), its rules are counted again one by one, so that only the broken rule fails. The
 * counts are what a plain DuckDB counts with the same predicate, which the tests compare.
 */

/** Failing rows shown per rule. */
export const SAMPLE_ROWS = 5;

/** The name the version has in every rule's SQL, as in a single-source recipe. */
export const CHECKED_TABLE = 'CurrentTable';

const TABLE = quotedIdentifier(CHECKED_TABLE);
const ASSERTION_VIEW = quotedIdentifier('quality assertion');
const DUPLICATES = quotedIdentifier('quality duplicates');

export interface QualityCheckInput {
  /** The version's data.parquet, on local disk. */
  readonly dataPath: string;
  readonly rules: readonly { readonly id: number; readonly rule: QualityRuleDefinition }[];
  /** The check's time (ISO 8601): freshness is measured against it. */
  readonly now: string;
  /** The memory of the worker the import runs in: the engine is sized as the import's (limits.ts). */
  readonly memoryMb: number;
  /** Where the engine spills, inside the job's work folder. */
  readonly spillDirectory: string;
}

/**
 * How a rule is counted: its failing rows as a predicate (counted in the shared scan), a query
 * of its own that counts them (unique), or two aggregate expressions over the whole table
 * (counted in the shared scan too) and what they must be for it to pass.
 */
type Plan =
  | { readonly kind: 'rows'; readonly from: string; readonly predicate: string }
  | { readonly kind: 'rows'; readonly from: string; readonly countSql: string }
  | {
      readonly kind: 'table';
      readonly value: string;
      readonly extra: string;
      readonly passes: (value: DataValue, extra: DataValue) => boolean;
    };

/** A rule of the shared scan: where its outcome goes, and its plan. */
interface Scanned {
  readonly index: number;
  readonly plan: Plan & ({ readonly predicate: string } | { readonly kind: 'table' });
}

/** Checks every rule, in order, in one sandboxed engine; the outcome of each. */
export async function checkQualityRules(
  input: QualityCheckInput,
  _emit: (event: never) => void,
): Promise<QualityRuleOutcome[]> {
  const instance = await createSandboxedDuckDb({
    directories: [dirname(input.dataPath)],
    budget: engineBudget('worker', input.memoryMb),
    spillDirectory: input.spillDirectory,
  });
  return withEngine(instance, async (connection) => {
    const columns = await describeParquet(connection, input.dataPath);
    await connection.run(`CREATE VIEW ${TABLE} AS SELECT * FROM ${parquetSource(input.dataPath)}`);
    const outcomes: (QualityRuleOutcome | undefined)[] = input.rules.map(() => undefined);
    const alone: number[] = [];
    const scanned: Scanned[] = [];
    for (const [index, { id, rule }] of input.rules.entries()) {
      if (rule.kind === 'custom_sql') {
        alone.push(index);
        continue;
      }
      try {
        const plan = planOf(rule, columns, input.now);
        if ('countSql' in plan) alone.push(index);
        else scanned.push({ index, plan });
      } catch (error) {
        outcomes[index] = { rule_id: id, ...failed(error, input.dataPath, false), duration_ms: 0 };
      }
    }
    for (const [index, outcome] of (await checkScanned(connection, scanned, columns, input)).entries())
      outcomes[scanned[index]!.index] = { rule_id: input.rules[scanned[index]!.index]!.id, ...outcome };
    for (const index of alone) {
      const { id, rule } = input.rules[index]!;
      const started = performance.now();
      const outcome = await checkRule(connection, rule, columns, input).catch((error: unknown) =>
        failed(error, input.dataPath, rule.kind === 'custom_sql'),
      );
      outcomes[index] = { rule_id: id, ...outcome, duration_ms: since(started) };
    }
    return outcomes.map((outcome) => outcome!);
  });
}

const since = (started: number): number => Math.round((performance.now() - started) * 100) / 100;

/**
 * The rules of the shared scan counted in one aggregate query, then the samples of those with
 * failing rows; each rule's duration is the scan's plus its samples'. Should the scan fail,
 * each rule is counted alone, so a rule that breaks at run time fails by itself.
 */
async function checkScanned(
  connection: DuckDBConnection,
  scanned: readonly Scanned[],
  columns: readonly ColumnSchema[],
  input: QualityCheckInput,
): Promise<Omit<QualityRuleOutcome, 'rule_id'>[]> {
  if (scanned.length === 0) return [];
  const started = performance.now();
  const selected = scanned.flatMap(({ plan }) =>
    plan.kind === 'table' ? [plan.value, plan.extra] : [`count(*) FILTER (WHERE ${plan.predicate})`],
  );
  // Counts as DuckDB answers them (BIGINT); the table-wide measures as JSON-safe text.
  let values: readonly unknown[];
  try {
    const reader = await connection.runAndReadAll(`SELECT ${selected.join(', ')} FROM ${TABLE}`);
    values = reader.getRows()[0] ?? [];
  } catch {
    return Promise.all(
      scanned.map(async ({ plan }) => {
        const alone = performance.now();
        const outcome = await checkPlan(connection, plan, columns).catch((error: unknown) =>
          failed(error, input.dataPath, false),
        );
        return { ...outcome, duration_ms: since(alone) };
      }),
    );
  }
  const scanMs = since(started);
  const outcomes: Omit<QualityRuleOutcome, 'rule_id'>[] = [];
  let at = 0;
  for (const { plan } of scanned) {
    if (plan.kind === 'table') {
      const [value, extra] = [parseJsonSafe(values[at] ?? null), parseJsonSafe(values[at + 1] ?? null)];
      at += 2;
      outcomes.push({ ...tableOutcome(plan, value, extra), duration_ms: scanMs });
      continue;
    }
    const count = Number(values[at] ?? 0);
    at += 1;
    const sampled = performance.now();
    const sample = count > 0 ? await readJsonSafeRows(connection, plan.from, columns, SAMPLE_ROWS) : [];
    outcomes.push({
      passed: count === 0,
      failing_row_count: count,
      observed: null,
      sample_rows: sample,
      error: null,
      duration_ms: Math.round((scanMs + since(sampled)) * 100) / 100,
    });
  }
  return outcomes;
}

function tableOutcome(
  plan: Extract<Plan, { kind: 'table' }>,
  value: DataValue,
  extra: DataValue,
): Omit<QualityRuleOutcome, 'rule_id' | 'duration_ms'> {
  return { passed: plan.passes(value, extra), failing_row_count: null, observed: value, sample_rows: [], error: null };
}

type Checked = Omit<QualityRuleOutcome, 'rule_id' | 'duration_ms'>;

/**
 * A rule that could not be checked fails, saying why (without the engine's local paths): an
 * assertion that does not run is 40-50001, as the analyzer answers a query that does not bind.
 */
function failed(error: unknown, dataPath: string, assertion: boolean): Checked {
  const appError = isAppError(error) ? error : engineFailure(error, [{ path: dirname(dataPath), name: CHECKED_TABLE }]);
  const cause = appError.extraDetails?.cause;
  return {
    passed: false,
    failing_row_count: null,
    observed: null,
    sample_rows: [],
    error: {
      code: assertion && !isAppError(error) ? '40-50001' : appError.code,
      message: typeof cause === 'string' ? cause : appError.message,
    },
  };
}

async function checkRule(
  connection: DuckDBConnection,
  rule: QualityRuleDefinition,
  columns: readonly ColumnSchema[],
  input: QualityCheckInput,
): Promise<Checked> {
  if (rule.kind === 'custom_sql') {
    // As a recipe's code: a view takes it as written (a trailing semicolon or comment included).
    await connection.run(`CREATE OR REPLACE VIEW ${ASSERTION_VIEW} AS\n${rule.sql}\n`);
    const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${ASSERTION_VIEW}`);
    const shown = reader.getRowObjects().map((row) => ({
      name: String(row.column_name),
      type: String(row.column_type),
      nullable: true,
    }));
    return countRows(connection, ASSERTION_VIEW, shown);
  }
  return checkPlan(connection, planOf(rule, columns, input.now), columns);
}

/** One rule counted by itself: a query of its own. */
async function checkPlan(connection: DuckDBConnection, plan: Plan, columns: readonly ColumnSchema[]): Promise<Checked> {
  if (plan.kind === 'rows')
    return countRows(connection, plan.from, columns, 'countSql' in plan ? plan.countSql : undefined);
  const reader = await connection.runAndReadAll(`SELECT ${plan.value}, ${plan.extra} FROM ${TABLE}`);
  const [value, extra] = reader.getRows()[0] ?? [null, null];
  return tableOutcome(plan, parseJsonSafe(value ?? null), parseJsonSafe(extra ?? null));
}

/** The failing rows of `from` counted, and a few of them read JSON-safe. */
async function countRows(
  connection: DuckDBConnection,
  from: string,
  columns: readonly ColumnSchema[],
  countSql = `SELECT count(*) FROM ${from}`,
): Promise<Checked> {
  const reader = await connection.runAndReadAll(countSql);
  const count = Number(reader.getRows()[0]?.[0] ?? 0);
  const sample = count > 0 ? await readJsonSafeRows(connection, from, columns, SAMPLE_ROWS) : [];
  return { passed: count === 0, failing_row_count: count, observed: null, sample_rows: sample, error: null };
}

/** The column a rule names, as the version spells it: 20-1031 when the version has none of that name. */
function columnOf(columns: readonly ColumnSchema[], name: string): ColumnSchema {
  const found =
    columns.find((column) => column.name === name) ??
    columns.find((column) => column.name.toLowerCase() === name.toLowerCase());
  if (!found)
    throw new AppError('20-1031', { params: [name], extraDetails: { cause: `invalid column name: ${name}` } });
  return found;
}

const failingRows = (predicate: string): Plan => ({
  kind: 'rows',
  predicate,
  from: `(SELECT * FROM ${TABLE} WHERE ${predicate})`,
});

const numberLiteral = (value: number): string => `CAST(${quotedString(String(value))} AS DOUBLE)`;

function planOf(
  rule: Exclude<QualityRuleDefinition, { kind: 'custom_sql' }>,
  columns: readonly ColumnSchema[],
  now: string,
): Plan {
  const column = (name: string) => quotedIdentifier(columnOf(columns, name).name);
  switch (rule.kind) {
    case 'not_null':
      return failingRows(`${column(rule.column)} IS NULL`);
    case 'accepted_values': {
      const values = rule.values.map((value) => quotedString(value)).join(', ');
      return failingRows(`CAST(${column(rule.column)} AS VARCHAR) NOT IN (${values})`);
    }
    case 'range': {
      const value = column(rule.column);
      const outside = [
        ...(typeof rule.min === 'number' ? [`${value} < ${numberLiteral(rule.min)}`] : []),
        ...(typeof rule.max === 'number' ? [`${value} > ${numberLiteral(rule.max)}`] : []),
      ];
      return failingRows(`(${outside.join(' OR ')})`);
    }
    case 'pattern':
      return failingRows(
        `NOT regexp_full_match(CAST(${column(rule.column)} AS VARCHAR), ${quotedString(rule.pattern)})`,
      );
    case 'unique': {
      const key = rule.columns.map(column);
      const complete = key.map((name) => `${name} IS NOT NULL`).join(' AND ');
      const shared = `SELECT ${key.join(', ')}, count(*) AS ${DUPLICATES} FROM ${TABLE} WHERE ${complete} GROUP BY ALL HAVING count(*) > 1`;
      return {
        kind: 'rows',
        // Counted by a hash aggregate: a window over every row took 0.71 s against 0.46 s over 1M keys (docs/decisions.md).
        countSql: `SELECT coalesce(sum(${DUPLICATES}), 0) FROM (${shared})`,
        from: `(SELECT * FROM ${TABLE} SEMI JOIN (${shared}) AS ${quotedIdentifier('quality keys')} USING (${key.join(', ')}))`,
      };
    }
    case 'row_count_between': {
      const { min, max } = rule;
      return {
        kind: 'table',
        value: jsonSafeSql('count(*)', 'BIGINT'),
        extra: 'NULL',
        passes: (count) =>
          typeof count === 'number' &&
          (typeof min !== 'number' || count >= min) &&
          (typeof max !== 'number' || count <= max),
      };
    }
    case 'freshness': {
      const found = columnOf(columns, rule.column);
      const family = typeFamily(found.type);
      if (family !== 'date' && family !== 'timestamp' && family !== 'timestamp-utc')
        throw new AppError('10-1400', {
          extraDetails: { cause: `column ${found.name} is ${found.type}, not a DATE or TIMESTAMP` },
        });
      // The newest value cast, not every value: the cast keeps the order (UTC), and costs one value.
      const newest = `CAST(max(${quotedIdentifier(found.name)}) AS TIMESTAMP WITH TIME ZONE)`;
      const cutoff = `CAST(${quotedString(now)} AS TIMESTAMP WITH TIME ZONE) - to_seconds(${rule.max_age_seconds})`;
      return {
        kind: 'table',
        value: jsonSafeSql(newest, 'TIMESTAMP WITH TIME ZONE'),
        extra: jsonSafeSql(`coalesce(${newest} >= ${cutoff}, false)`, 'BOOLEAN'),
        passes: (_newest, fresh) => fresh === true,
      };
    }
  }
}
