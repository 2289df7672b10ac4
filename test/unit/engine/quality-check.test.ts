import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkQualityRules, SAMPLE_ROWS, type QualityCheckInput } from '../../../shared/engine/quality-check';
import type { QualityRuleDefinition, QualityRuleOutcome } from '../../../shared/model/quality-rule';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

/**
 * Every kind of data-quality rule over a crafted table of 1,000 rows, each failing row count
 * compared with what a plain DuckDB counts with the rule's meaning written out by hand
 * (docs/data-quality.md), and the rules that pass, the table-wide rules' observed values, the
 * samples, and the rules that cannot be checked.
 */
const TABLE = `
  SELECT
    i AS id,
    CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 1.5)::DOUBLE END AS price, -- 142 NULLs
    CASE WHEN i % 10 = 0 THEN i - 1 ELSE i END AS code,                -- 100 keys shared by two rows
    CASE WHEN i % 4 = 0 THEN 'DE' WHEN i % 4 = 1 THEN 'FR' WHEN i % 4 = 2 THEN 'IT' ELSE 'xx' END AS country,
    CASE WHEN i % 50 = 0 THEN NULL ELSE 'SKU-' || lpad(i::VARCHAR, 4, '0') END AS sku,
    CASE WHEN i % 100 = 0 THEN 'bad sku' ELSE 'SKU-' || lpad(i::VARCHAR, 4, '0') END AS sku2,
    i % 3 AS region,
    TIMESTAMP '2024-06-01 00:00:00' + to_hours(i) AS updated_at
  FROM range(1, 1001) t(i)`;

/** The check's clock: the newest updated_at is 2024-07-12T16:00:00, 5 days and 8 hours earlier. */
const NOW = '2024-07-18T00:00:00.000Z';

let dir: Scratch;
let dataPath: string;

beforeAll(async () => {
  dir = await scratch('quality-check');
  dataPath = join(dir.dir, 'data.parquet');
  await withPlainDuckDb((connection) =>
    connection.run(`COPY (${TABLE}) TO ${quotedString(dataPath)} (FORMAT parquet)`),
  );
});

afterAll(() => dir?.remove());

function input(rules: readonly QualityRuleDefinition[]): QualityCheckInput {
  return {
    dataPath,
    rules: rules.map((rule, index) => ({ id: index + 1, rule })),
    now: NOW,
    memoryMb: 1024,
    spillDirectory: join(dir.dir, 'spill'),
  };
}

async function check(rule: QualityRuleDefinition): Promise<QualityRuleOutcome> {
  const [outcome] = await checkQualityRules(input([rule]), () => undefined);
  return outcome!;
}

/** What a plain DuckDB counts over the same file with `where`. */
async function direct(where: string): Promise<number> {
  return withPlainDuckDb(async (connection) => {
    const reader = await connection.runAndReadAll(
      `SELECT count(*) FROM read_parquet(${quotedString(dataPath)}) WHERE ${where}`,
    );
    return Number(reader.getRows()[0]![0]);
  });
}

describe('data-quality rules over a version', () => {
  it('not_null counts the null rows, as DuckDB does', async () => {
    const outcome = await check({ kind: 'not_null', column: 'price' });
    expect(outcome.failing_row_count).toBe(await direct('price IS NULL'));
    expect(outcome.failing_row_count).toBe(142);
    expect(outcome).toMatchObject({ passed: false, error: null, observed: null });
    expect(outcome.sample_rows).toHaveLength(SAMPLE_ROWS);
    for (const row of outcome.sample_rows) expect(row.price).toBeNull();
    expect(await check({ kind: 'not_null', column: 'id' })).toMatchObject({ passed: true, failing_row_count: 0 });
  });

  it('unique counts every row whose key another row shares, over one or more columns', async () => {
    const outcome = await check({ kind: 'unique', columns: ['code'] });
    const expected = await direct(
      'code IN (SELECT code FROM read_parquet(' + quotedString(dataPath) + ') GROUP BY code HAVING count(*) > 1)',
    );
    expect(outcome.failing_row_count).toBe(expected);
    expect(outcome.failing_row_count).toBe(200);
    // code and region together: two rows share a code, and one of them a region too, only when i and i-1 agree mod 3 (never).
    const pair = await check({ kind: 'unique', columns: ['code', 'region'] });
    const pairExpected = await direct(
      '(code, region) IN (SELECT (code, region) FROM read_parquet(' +
        quotedString(dataPath) +
        ') GROUP BY code, region HAVING count(*) > 1)',
    );
    expect(pair.failing_row_count).toBe(pairExpected);
    expect(pair.passed).toBe(pairExpected === 0);
    expect(await check({ kind: 'unique', columns: ['id'] })).toMatchObject({ passed: true, failing_row_count: 0 });
  });

  it('accepted_values counts the values outside the list (nulls pass)', async () => {
    const outcome = await check({ kind: 'accepted_values', column: 'country', values: ['DE', 'FR', 'IT'] });
    expect(outcome.failing_row_count).toBe(await direct("country NOT IN ('DE', 'FR', 'IT')"));
    expect(outcome.failing_row_count).toBe(250);
    expect(outcome.sample_rows.every((row) => row.country === 'xx')).toBe(true);
    // Numbers are compared as text.
    const regions = await check({ kind: 'accepted_values', column: 'region', values: ['0', '1'] });
    expect(regions.failing_row_count).toBe(await direct('region = 2'));
  });

  it('range counts the values below min or above max, inclusive bounds, nulls passing', async () => {
    const outcome = await check({ kind: 'range', column: 'price', min: 15, max: 1200 });
    expect(outcome.failing_row_count).toBe(await direct('price < 15 OR price > 1200'));
    expect(outcome.failing_row_count).toBe(
      (await direct('id < 10 OR id > 800')) - (await direct('(id < 10 OR id > 800) AND price IS NULL')),
    );
    expect(await check({ kind: 'range', column: 'id', min: 1 })).toMatchObject({ passed: true, failing_row_count: 0 });
    const onlyMax = await check({ kind: 'range', column: 'id', max: 990 });
    expect(onlyMax.failing_row_count).toBe(10);
  });

  it('pattern counts the values the whole RE2 expression does not match (nulls pass)', async () => {
    const outcome = await check({ kind: 'pattern', column: 'sku2', pattern: 'SKU-[0-9]{4}' });
    expect(outcome.failing_row_count).toBe(await direct("NOT regexp_full_match(sku2, 'SKU-[0-9]{4}')"));
    expect(outcome.failing_row_count).toBe(10);
    const withNulls = await check({ kind: 'pattern', column: 'sku', pattern: 'SKU-\\d+' });
    expect(withNulls).toMatchObject({ passed: true, failing_row_count: 0 });
  });

  it('row_count_between observes the row count', async () => {
    expect(await check({ kind: 'row_count_between', min: 1000, max: 1000 })).toMatchObject({
      passed: true,
      failing_row_count: null,
      observed: 1000,
    });
    expect(await check({ kind: 'row_count_between', min: 1001 })).toMatchObject({ passed: false, observed: 1000 });
    expect(await check({ kind: 'row_count_between', max: 999 })).toMatchObject({ passed: false, observed: 1000 });
  });

  it('freshness compares the newest value with the check time', async () => {
    const newest = '2024-07-12T16:00:00Z';
    const sixDays = 6 * 24 * 3600;
    expect(await check({ kind: 'freshness', column: 'updated_at', max_age_seconds: sixDays })).toMatchObject({
      passed: true,
      observed: newest,
      failing_row_count: null,
    });
    expect(await check({ kind: 'freshness', column: 'updated_at', max_age_seconds: 5 * 24 * 3600 })).toMatchObject({
      passed: false,
      observed: newest,
    });
    const wrongType = await check({ kind: 'freshness', column: 'country', max_age_seconds: sixDays });
    expect(wrongType).toMatchObject({ passed: false, error: { code: '10-1400' } });
  });

  it('custom_sql fails with the rows the assertion returns, as DuckDB counts them', async () => {
    const outcome = await check({
      kind: 'custom_sql',
      sql: "SELECT id, price FROM CurrentTable WHERE price > 1400 AND country = 'DE';",
    });
    expect(outcome.failing_row_count).toBe(await direct("price > 1400 AND country = 'DE'"));
    expect(outcome.sample_rows[0]).toEqual({ id: 936, price: 1404 });
    expect(await check({ kind: 'custom_sql', sql: 'SELECT * FROM CurrentTable WHERE id < 0' })).toMatchObject({
      passed: true,
      failing_row_count: 0,
    });
  });

  it('fails a rule it cannot check, saying why, and goes on with the others', async () => {
    const outcomes = await checkQualityRules(
      input([
        { kind: 'not_null', column: 'no_such_column' },
        { kind: 'custom_sql', sql: 'SELECT missing FROM CurrentTable' },
        { kind: 'not_null', column: 'ID' },
      ]),
      () => undefined,
    );
    expect(outcomes[0]).toMatchObject({ rule_id: 1, passed: false, error: { code: '20-1031' } });
    expect(outcomes[1]).toMatchObject({ rule_id: 2, passed: false, error: { code: '40-50001' } });
    expect(outcomes[1]!.error!.message).not.toContain(dir.dir);
    // Column names match ignoring case, as DuckDB matches them.
    expect(outcomes[2]).toMatchObject({ rule_id: 3, passed: true, failing_row_count: 0 });
    for (const outcome of outcomes) expect(outcome.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('counts the rules together (one scan) exactly as each alone, and a rule broken at run time fails by itself', async () => {
    const rules: QualityRuleDefinition[] = [
      { kind: 'not_null', column: 'price' },
      { kind: 'accepted_values', column: 'country', values: ['DE', 'FR', 'IT'] },
      { kind: 'range', column: 'price', min: 15, max: 1200 },
      { kind: 'pattern', column: 'sku2', pattern: 'SKU-[0-9]{4}' },
      { kind: 'row_count_between', min: 1, max: 999 },
      { kind: 'freshness', column: 'updated_at', max_age_seconds: 6 * 24 * 3600 },
      { kind: 'unique', columns: ['code'] },
      { kind: 'custom_sql', sql: 'SELECT * FROM CurrentTable WHERE id > 990' },
    ];
    const together = await checkQualityRules(input(rules), () => undefined);
    const alone = await Promise.all(rules.map((rule) => check(rule)));
    const counted = (outcome: QualityRuleOutcome) => ({
      passed: outcome.passed,
      failing_row_count: outcome.failing_row_count,
      observed: outcome.observed,
      sample_rows: outcome.sample_rows,
      error: outcome.error,
    });
    expect(together.map((outcome) => outcome.rule_id)).toEqual(rules.map((_, index) => index + 1));
    expect(together.map(counted)).toEqual(alone.map(counted));
    expect(together.map((outcome) => outcome.failing_row_count)).toEqual([142, 250, 180, 10, null, null, 200, 10]);

    // 'DE' is no number: the shared scan fails at run time, and only that rule does.
    const broken = await checkQualityRules(
      input([{ kind: 'range', column: 'country', min: 1 }, ...rules.slice(0, 2)]),
      () => undefined,
    );
    expect(broken[0]).toMatchObject({ passed: false, failing_row_count: null, error: { code: expect.any(String) } });
    expect(broken.slice(1).map(counted)).toEqual(alone.slice(0, 2).map(counted));
  });

  it('cannot reach a file outside the version from a custom assertion', async () => {
    const outcome = await check({ kind: 'custom_sql', sql: "SELECT * FROM read_csv('/etc/passwd')" });
    expect(outcome.passed).toBe(false);
    expect(outcome.failing_row_count).toBeNull();
    expect(outcome.error?.code).toBe('40-50001');
  });
});
