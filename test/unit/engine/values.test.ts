import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDb } from '../../../shared/engine/duckdb';
import { describeParquet, parquetSource } from '../../../shared/engine/parquet';
import { copyToJsonLines, parseJsonSafe, readJsonSafeRows } from '../../../shared/engine/values';
import { DataRow } from '../../../shared/model/columns';
import { scratch, type Scratch } from './scratch';

/**
 * JSON-safe values of every type family, through both ways out of the engine: rows read by
 * Node (previews) and JSON lines written by DuckDB (sample.jsonl).
 */
let dir: Scratch;
let parquet: string;

const FIXTURE = `
  SELECT * FROM (VALUES
    (1, true, 42::INTEGER, 9007199254740991::BIGINT, 9007199254740993::BIGINT, 18446744073709551615::UBIGINT,
     0.1::DOUBLE, 0.1::FLOAT, 1.500::DECIMAL(18,3), 123456789012345678.5::DECIMAL(38,2),
     DATE '2024-02-29', TIMESTAMP '2024-02-29 13:14:15.123456', TIMESTAMP_MS '2024-02-29 13:14:15.5', TIMESTAMPTZ '2024-02-29 13:14:15+02',
     TIME '01:02:03', 'é "quoted"' || chr(10) || 'line', [1, 2], {'k': 'v'}, '00000000-0000-0000-0000-000000000001'::UUID, INTERVAL 2 DAY),
    (2, false, -1::INTEGER, -5::BIGINT, 12::BIGINT, 3::UBIGINT,
     'NaN'::DOUBLE, 'Infinity'::FLOAT, -0.25::DECIMAL(18,3), 0::DECIMAL(38,2),
     DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP_MS '1970-01-01 00:00:00', 'infinity'::TIMESTAMPTZ,
     TIME '23:59:59.5', '', [], {'k': NULL}, NULL, INTERVAL 90 MINUTE),
    (3, NULL, NULL, NULL, NULL, NULL, '-Infinity'::DOUBLE, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
  ) AS t(n, "boolean", "integer", safe_bigint, big_bigint, ubig, "double", "float", "decimal", wide_decimal,
         "date", "timestamp", timestamp_ms, timestamptz, "time", "varchar", list, struct, uuid, "interval")`;

const EXPECTED: DataRow[] = [
  {
    n: 1,
    boolean: true,
    integer: 42,
    safe_bigint: 9007199254740991,
    big_bigint: '9007199254740993',
    ubig: '18446744073709551615',
    double: 0.1,
    float: 0.10000000149011612,
    decimal: '1.500',
    wide_decimal: '123456789012345678.50',
    date: '2024-02-29',
    timestamp: '2024-02-29T13:14:15.123456',
    timestamp_ms: '2024-02-29T13:14:15.5',
    timestamptz: '2024-02-29T11:14:15Z',
    time: '01:02:03',
    varchar: 'é "quoted"\nline',
    list: '[1, 2]',
    struct: "{'k': v}",
    uuid: '00000000-0000-0000-0000-000000000001',
    interval: '2 days',
  },
  {
    n: 2,
    boolean: false,
    integer: -1,
    safe_bigint: -5,
    big_bigint: 12,
    ubig: 3,
    double: 'NaN',
    float: 'Infinity',
    decimal: '-0.250',
    wide_decimal: '0.00',
    date: '1970-01-01',
    timestamp: '1970-01-01T00:00:00',
    timestamp_ms: '1970-01-01T00:00:00',
    timestamptz: 'infinity',
    time: '23:59:59.5',
    varchar: '',
    list: '[]',
    struct: "{'k': NULL}",
    uuid: null,
    interval: '01:30:00',
  },
  {
    n: 3,
    boolean: null,
    integer: null,
    safe_bigint: null,
    big_bigint: null,
    ubig: null,
    double: '-Infinity',
    float: null,
    decimal: null,
    wide_decimal: null,
    date: null,
    timestamp: null,
    timestamp_ms: null,
    timestamptz: null,
    time: null,
    varchar: null,
    list: null,
    struct: null,
    uuid: null,
    interval: null,
  },
];

beforeAll(async () => {
  dir = await scratch('engine-values');
  parquet = join(dir.dir, 'types.parquet');
  await withDuckDb(dir.dir, (connection) =>
    connection.run(`COPY (${FIXTURE}) TO ${quotedString(parquet)} (FORMAT parquet)`),
  );
});
afterAll(async () => {
  await dir.remove();
});

describe('JSON-safe values', () => {
  it('are read by Node as the rules say', async () => {
    const rows = await withDuckDb(dir.dir, async (connection) =>
      readJsonSafeRows(connection, parquetSource(parquet), await describeParquet(connection, parquet), 10),
    );
    expect(rows).toEqual(EXPECTED);
  });

  it('are written by DuckDB as JSON lines equal to the rows read by Node', async () => {
    const path = join(dir.dir, 'types.jsonl');
    await withDuckDb(dir.dir, async (connection) =>
      copyToJsonLines(connection, parquetSource(parquet), await describeParquet(connection, parquet), path),
    );
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => DataRow.parse(JSON.parse(line)))).toEqual(EXPECTED);
  });

  it('keep HUGEINT and UHUGEINT (which Parquet cannot hold) exact beyond 2^53', async () => {
    const query = `(SELECT * FROM (VALUES (-9007199254740993::HUGEINT, 340282366920938463463374607431768211455::UHUGEINT), (7::HUGEINT, 8::UHUGEINT)) t(h, u))`;
    const columns = [
      { name: 'h', type: 'HUGEINT', nullable: true },
      { name: 'u', type: 'UHUGEINT', nullable: true },
    ];
    const rows = await withDuckDb(dir.dir, (connection) => readJsonSafeRows(connection, query, columns, 10));
    expect(rows).toEqual([
      { h: '-9007199254740993', u: '340282366920938463463374607431768211455' },
      { h: 7, u: 8 },
    ]);
  });

  it('keep every double exactly', async () => {
    const doubles = [1 / 3, 5e-324, 1.7976931348623157e308, -0, 123456789.12345679, 1e21, 0.1 + 0.2];
    const rows = await withDuckDb(dir.dir, async (connection) => {
      const path = join(dir.dir, 'doubles.parquet');
      const values = doubles.map((value) => `(${Object.is(value, -0) ? '-0.0' : value.toString()}::DOUBLE)`).join(', ');
      await connection.run(`COPY (SELECT * FROM (VALUES ${values}) t(x)) TO ${quotedString(path)} (FORMAT parquet)`);
      return readJsonSafeRows(connection, parquetSource(path), await describeParquet(connection, path), 100);
    });
    expect(rows.map((row) => row.x)).toEqual(doubles);
  });
});

describe('parseJsonSafe', () => {
  it('reads JSON scalars and NULL', () => {
    expect(parseJsonSafe(null)).toBeNull();
    expect(parseJsonSafe('"a"')).toBe('a');
    expect(parseJsonSafe('1.5')).toBe(1.5);
    expect(parseJsonSafe('false')).toBe(false);
  });

  it('refuses composite JSON', () => {
    expect(() => parseJsonSafe('[1]')).toThrow(TypeError);
    expect(() => parseJsonSafe(1)).toThrow(TypeError);
  });
});
