import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseParquet } from '../../../shared/engine/schema-analysis';
import { AppError } from '../../../shared/errors/app-error';
import { SchemaAnalysisResult, type ColumnProfile } from '../../../shared/model/columns';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

/**
 * A crafted table of 100 rows with one column per alert, clean columns that must raise none,
 * and exact expectations for counts, ranges and statistics.
 */
const TABLE = `
  SELECT
    i AS id,                                                        -- 1..100, a key: UNIQUE
    CASE WHEN i <= 10 THEN NULL ELSE i::DOUBLE END AS amount,       -- 10 NULLs, then 11..100
    NULL::VARCHAR AS empty_text,                                    -- ALL_NULL
    NULL::DOUBLE AS empty_number,                                   -- ALL_NULL
    CASE WHEN i % 5 < 3 THEN NULL ELSE 'v' || i END AS sparse,      -- 60% NULL: MOSTLY_NULL
    'same' AS constant,                                             -- CONSTANT
    'code-' || CASE WHEN i <= 95 THEN i ELSE 1 END AS code,         -- 95 distinct of 100: HIGH_CARDINALITY
    CASE WHEN i <= 90 THEN (i % 30)::VARCHAR ELSE 'n/a' END AS mixed, -- 90% integers, 10% text: MIXED_TYPES
    ['a', 'b', 'c', 'd', 'e'][1 + i % 5] AS category,               -- clean
    DATE '2024-01-01' + i::INTEGER AS day,                          -- clean
    i % 2 = 0 AS flag,                                              -- clean
    (i / 4)::DECIMAL(10, 2) AS price                                -- clean
  FROM range(1, 101) t(i)`;

let dir: Scratch;
let tablePath: string;
let emptyPath: string;
let kindsPath: string;

async function writeParquet(name: string, select: string): Promise<string> {
  const path = join(dir.dir, name);
  await withPlainDuckDb((connection) => connection.run(`COPY (${select}) TO ${quotedString(path)} (FORMAT parquet)`));
  return path;
}

beforeAll(async () => {
  dir = await scratch('schema-analysis');
  tablePath = await writeParquet('table.parquet', TABLE);
  emptyPath = await writeParquet('empty.parquet', `SELECT * FROM (${TABLE}) WHERE false`);
  kindsPath = await writeParquet(
    'kinds.parquet',
    `SELECT * FROM (VALUES (' 12 '), ('-3'), ('1.5'), ('.5'), ('1e3'), ('TRUE'), ('false'), ('2024-02-29'), ('2024-02-30'),
       ('2024-01-01 10:00'), ('2024-01-01T10:00:00.5Z'), ('hello'), (''), (NULL)) t(v)`,
  );
});
afterAll(async () => {
  await dir.remove();
});

const byName = (result: SchemaAnalysisResult) =>
  Object.fromEntries(result.columns.map((column) => [column.name, column])) as Record<string, ColumnProfile>;

describe('analyseParquet SHALLOW', () => {
  it('answers names, types, row and NULL counts, and no alerts', async () => {
    const result = SchemaAnalysisResult.parse(await analyseParquet(tablePath, 'SHALLOW'));
    expect(result).toMatchObject({ depth: 'SHALLOW', row_count: 100, alerts: [] });
    expect(result.columns.map(({ name, type }) => `${name} ${type}`)).toEqual([
      'id BIGINT',
      'amount DOUBLE',
      'empty_text VARCHAR',
      'empty_number DOUBLE',
      'sparse VARCHAR',
      'constant VARCHAR',
      'code VARCHAR',
      'mixed VARCHAR',
      'category VARCHAR',
      'day DATE',
      'flag BOOLEAN',
      'price DECIMAL(10,2)',
    ]);
    const columns = byName(result);
    expect(columns.id).toEqual({ name: 'id', type: 'BIGINT', null_count: 0, null_ratio: 0 });
    expect(columns.amount).toEqual({ name: 'amount', type: 'DOUBLE', null_count: 10, null_ratio: 0.1 });
    expect(columns.empty_text).toMatchObject({ null_count: 100, null_ratio: 1 });
    expect(columns.sparse).toMatchObject({ null_count: 60, null_ratio: 0.6 });
  });

  it('works on a table without rows', async () => {
    const result = await analyseParquet(emptyPath, 'SHALLOW');
    expect(result.row_count).toBe(0);
    expect(result.columns.every((column) => column.null_count === 0 && column.null_ratio === 0)).toBe(true);
  });
});

describe('analyseParquet FULL', () => {
  let result: SchemaAnalysisResult;
  let columns: Record<string, ColumnProfile>;
  beforeAll(async () => {
    result = SchemaAnalysisResult.parse(await analyseParquet(tablePath, 'FULL', { workDir: dir.dir }));
    columns = byName(result);
  });

  it('profiles a numeric column: distinct count, range, mean, deviation, quantiles', () => {
    expect(columns.amount).toMatchObject({ null_count: 10, distinct_count: 90, min: 11, max: 100, mean: 55.5 });
    expect(columns.amount?.std).toBeCloseTo(Math.sqrt((90 * 91) / 12), 10);
    const quantiles = columns.amount?.quantiles;
    expect(quantiles?.p05).toBeCloseTo(15.45, 10);
    expect(quantiles?.p25).toBeCloseTo(33.25, 10);
    expect(quantiles?.p50).toBeCloseTo(55.5, 10);
    expect(quantiles?.p75).toBeCloseTo(77.75, 10);
    expect(quantiles?.p95).toBeCloseTo(95.55, 10);
    expect(columns.amount?.value_kinds).toBeUndefined();
  });

  it('profiles other types with JSON-safe ranges and without numeric statistics', () => {
    expect(columns.day).toMatchObject({
      distinct_count: 100,
      min: '2024-01-02',
      max: '2024-04-10',
      mean: null,
      std: null,
    });
    expect(columns.flag).toMatchObject({ distinct_count: 2, min: false, max: true });
    expect(columns.price).toMatchObject({ min: '0.25', max: '25.00', mean: 12.625 });
    expect(columns.category).toMatchObject({
      distinct_count: 5,
      min: 'a',
      max: 'e',
      value_kinds: { integer: 0, decimal: 0, boolean: 0, date: 0, timestamp: 0, text: 100 },
    });
    expect(columns.category?.quantiles).toBeUndefined();
    expect(columns.day?.value_kinds).toBeUndefined();
  });

  it('profiles all-NULL columns', () => {
    expect(columns.empty_text).toMatchObject({
      null_count: 100,
      null_ratio: 1,
      distinct_count: 0,
      min: null,
      max: null,
      mean: null,
      std: null,
    });
    expect(columns.empty_text?.value_kinds).toEqual({
      integer: 0,
      decimal: 0,
      boolean: 0,
      date: 0,
      timestamp: 0,
      text: 0,
    });
    expect(columns.empty_number?.quantiles).toEqual({ p05: null, p25: null, p50: null, p75: null, p95: null });
  });

  it('raises exactly the expected alerts, one per crafted column', () => {
    expect(result.alerts.map((alert) => `${alert.column} ${alert.type}`).sort()).toEqual(
      [
        'id UNIQUE',
        'empty_text ALL_NULL',
        'empty_number ALL_NULL',
        'sparse MOSTLY_NULL',
        'constant CONSTANT',
        'code HIGH_CARDINALITY',
        'mixed MIXED_TYPES',
      ].sort(),
    );
    const mixed = result.alerts.find((alert) => alert.type === 'MIXED_TYPES');
    expect(mixed).toMatchObject({
      value: expect.closeTo(0.1, 10) as number,
      message: 'Values look like several types: 90% number, 10% text',
    });
    expect(result.alerts.find((alert) => alert.type === 'HIGH_CARDINALITY')?.value).toBeCloseTo(0.95, 10);
    expect(result.alerts.find((alert) => alert.type === 'MOSTLY_NULL')?.value).toBeCloseTo(0.6, 10);
  });

  it('tells the kinds of text values apart', async () => {
    const kinds = await analyseParquet(kindsPath, 'FULL');
    expect(kinds.columns[0]?.value_kinds).toEqual({
      integer: 2,
      decimal: 3,
      boolean: 2,
      date: 1,
      timestamp: 2,
      text: 3,
    });
    expect(kinds.alerts.map((alert) => alert.type)).toEqual(['MIXED_TYPES']);
  });

  it('works on a table without rows', async () => {
    const empty = SchemaAnalysisResult.parse(await analyseParquet(emptyPath, 'FULL'));
    expect(empty.row_count).toBe(0);
    expect(empty.alerts).toEqual([]);
    expect(byName(empty).amount).toMatchObject({
      null_ratio: 0,
      distinct_count: 0,
      min: null,
      mean: null,
      quantiles: { p50: null },
    });
  });

  it('leaves nothing behind in the work folder', async () => {
    expect(existsSync(join(dir.dir, '.duckdb-spill'))).toBe(false);
    expect((await readdir(dir.dir)).sort()).toEqual(['empty.parquet', 'kinds.parquet', 'table.parquet']);
  });
});

describe('analyseParquet failures', () => {
  it('answers 10-500 without the local path for a file that is not Parquet', async () => {
    const path = await dir.file('broken.parquet', 'not parquet at all');
    const error: unknown = await analyseParquet(path, 'SHALLOW').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: '10-500' });
    expect(JSON.stringify((error as AppError).extraDetails)).not.toContain(dir.dir);
    expect(String((error as AppError).extraDetails?.cause)).toContain('broken.parquet');
  });
});
