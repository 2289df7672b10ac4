import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { importFiles } from '../../../shared/engine/file-import';
import type { TableImportResult } from '../../../shared/engine/table-import';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

let dir: Scratch;
let runs = 0;
beforeAll(async () => {
  dir = await scratch('file-formats');
});
afterAll(async () => {
  await dir.remove();
});

type Input = readonly [name: string, content: string | Uint8Array];

/** Writes the inputs under local names that keep their extension (as workers name them) and imports them. */
async function load(inputs: readonly Input[]): Promise<{ result: TableImportResult; paths: string[] }> {
  runs++;
  const files = await Promise.all(
    inputs.map(async ([name, content], index) => ({
      localPath: await dir.file(`${runs}-${index}-${name}`, content),
      source: `landing/${name}`,
    })),
  );
  const result = await importFiles(files, { outDir: join(dir.dir, `out-${runs}`), sampleRows: 100, previewRows: 100 });
  return { result, paths: files.map((file) => file.localPath) };
}

async function refusal(inputs: readonly Input[]): Promise<AppError> {
  const error: unknown = await load(inputs).catch((failure: unknown) => failure);
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/** Column names, types and rows (as text, ordered) of a query run by a plain DuckDB. */
function direct(sql: string): Promise<{ columns: string[]; rows: (string | null)[][] }> {
  return withPlainDuckDb(async (connection) => {
    const reader = await connection.runAndReadAll(sql);
    return {
      columns: reader.columnNames().map((name, index) => `${name} ${reader.columnTypes()[index]!.toString()}`),
      rows: reader.getRows().map((cells) => cells.map((cell) => (cell === null ? null : String(cell)))),
    };
  });
}

const imported = (result: TableImportResult) => direct(`SELECT * FROM read_parquet(${quotedString(result.dataPath)})`);

/** A Parquet file written by a plain DuckDB from `selectSql`. */
async function parquetFile(name: string, selectSql: string): Promise<Uint8Array> {
  const path = join(dir.dir, `fixture-${name}`);
  await withPlainDuckDb((connection) =>
    connection.run(`COPY (${selectSql}) TO ${quotedString(path)} (FORMAT parquet)`),
  );
  const { readFile } = await import('node:fs/promises');
  return readFile(path);
}

describe('gzip-compressed CSV', () => {
  it('reads what DuckDB reads from the same file, and mixes with plain CSV', async () => {
    const { result, paths } = await load([
      ['a.csv.gz', gzipSync('id,name,amount\n1,Ann,12.5\n2,Bob,-3\n')],
      ['b.csv', 'id,name,amount\n3,Cy,4\n'],
    ]);
    expect(result.rowCount).toBe(3);
    expect(await imported(result)).toEqual(
      await direct(
        `SELECT * FROM read_csv([${paths.map((path) => quotedString(path)).join(', ')}], header = true, union_by_name = true)`,
      ),
    );
    expect(result.previewRows[0]).toEqual({ id: 1, name: 'Ann', amount: 12.5 });
  });

  it('refuses a .csv.gz that is not gzip (10-1003) and checks the header inside (10-1009)', async () => {
    expect(await refusal([['a.csv.gz', 'id,name\n1,x\n']])).toMatchObject({
      code: '10-1003',
      extraDetails: { file: 'landing/a.csv.gz' },
    });
    expect(await refusal([['a.csv.gz', gzipSync('id,id\n1,2\n')]])).toMatchObject({
      code: '10-1009',
      extraDetails: { file: 'landing/a.csv.gz' },
    });
  });
});

describe('Parquet', () => {
  it('unifies the schemas of several files by column name, as DuckDB does', async () => {
    const first = await parquetFile(
      'p1.parquet',
      `SELECT 1::BIGINT AS id, 'north' AS region, DATE '2024-01-31' AS day`,
    );
    const second = await parquetFile(
      'p2.parquet',
      `SELECT DATE '2024-02-01' AS day, 'south' AS region, 2::BIGINT AS id, 7.5::DOUBLE AS extra`,
    );
    const { result, paths } = await load([
      ['p1.parquet', first],
      ['p2.parquet', second],
    ]);
    expect(result.rowCount).toBe(2);
    expect(result.columns.map((column) => column.name)).toEqual(['id', 'region', 'day', 'extra']);
    expect(await imported(result)).toEqual(
      await direct(
        `SELECT * FROM read_parquet([${paths.map((path) => quotedString(path)).join(', ')}], union_by_name = true)`,
      ),
    );
    expect(result.previewRows).toEqual([
      { id: 1, region: 'north', day: '2024-01-31', extra: null },
      { id: 2, region: 'south', day: '2024-02-01', extra: 7.5 },
    ]);
  });

  it('refuses text named .parquet (10-1003), a zip named .parquet (10-1000), a column name with a tab or a case-insensitive duplicate (10-1009) and a table of no rows (10-1005)', async () => {
    expect(await refusal([['a.parquet', 'a,b\n1,2\n']])).toMatchObject({
      code: '10-1003',
      extraDetails: { file: 'landing/a.parquet' },
    });
    const damaged = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(100, 7), Buffer.from('PAR1')]);
    expect(await refusal([['damaged.parquet', damaged]])).toMatchObject({
      code: '10-1003',
      extraDetails: { file: 'landing/damaged.parquet' },
    });
    expect(await refusal([['a.parquet', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00])]])).toMatchObject({
      code: '10-1000',
    });
    const tabbed = await parquetFile('tabbed.parquet', 'SELECT 1 AS "a\tb"');
    expect(await refusal([['tabbed.parquet', tabbed]])).toMatchObject({
      code: '10-1009',
      extraDetails: { file: 'landing/tabbed.parquet' },
    });
    // DuckDB would rename a duplicate when writing: the name is patched in the footer (same length).
    const written = Buffer.from(
      await parquetFile('cased.parquet', `SELECT 1 AS "Zq9", {'inner': 1} AS nested, 2 AS "Wq9"`),
    );
    const cased = Buffer.from(written.toString('latin1').replaceAll('Wq9', 'zQ9'), 'latin1');
    expect(await refusal([['cased.parquet', cased]])).toMatchObject({
      code: '10-1009',
      extraDetails: { cause: expect.stringContaining('"zQ9" appears more than once') },
    });
    const empty = await parquetFile('empty.parquet', `SELECT 1 AS id WHERE false`);
    expect(await refusal([['empty.parquet', empty]])).toMatchObject({ code: '10-1005' });
  });
});

describe('JSON Lines', () => {
  it('reads what DuckDB reads from the same files, unioned by key', async () => {
    const { result, paths } = await load([
      ['a.jsonl', '{"id": 1, "name": "Ann", "at": "2024-01-31T10:11:12"}\n{"id": 2, "name": null}\n'],
      ['b.ndjson', '{"name": "Cy", "id": 3, "score": 1.5}\n'],
    ]);
    expect(result.rowCount).toBe(3);
    expect(await imported(result)).toEqual(
      await direct(
        `SELECT * FROM read_json([${paths.map((path) => quotedString(path)).join(', ')}], format = 'newline_delimited', records = 'true', union_by_name = true)`,
      ),
    );
    expect(result.previewRows[0]).toEqual({ id: 1, name: 'Ann', at: '2024-01-31T10:11:12', score: null });
  });

  it('reads the files again with every line as the sample when a late line does not fit the sampled types', async () => {
    const lines = `${Array.from({ length: 200_000 }, (_, index) => `{"a": ${index}, "b": "2024-01-01"}`).join('\n')}\n{"a": "text", "b": "nope"}\n`;
    const { result, paths } = await load([['late.jsonl', lines]]);
    expect(result.rowCount).toBe(200_001);
    expect(await imported(result)).toEqual(
      await direct(
        `SELECT * FROM read_json(${quotedString(paths[0]!)}, format = 'newline_delimited', records = 'true', sample_size = -1)`,
      ),
    );
    expect(result.columns.map((column) => column.type)).not.toEqual(['BIGINT', 'DATE']);
  });

  it('refuses a line that is not an object (10-1002), a PDF named .jsonl (10-1000) only whitespace (10-1005), and keys DuckDB would rename (10-1009)', async () => {
    expect(await refusal([['a.jsonl', '{"id": 1}\n[1, 2]\n']])).toMatchObject({ code: '10-1002' });
    expect(await refusal([['a.jsonl', '%PDF-1.7\n']])).toMatchObject({
      code: '10-1000',
      extraDetails: { file: 'landing/a.jsonl' },
    });
    expect(await refusal([['a.jsonl', '\n \n']])).toMatchObject({ code: '10-1005' });
    expect(await refusal([['a.jsonl', '{"a": 1}\n{"A": 2}\n']])).toMatchObject({
      code: '10-1009',
      extraDetails: { file: 'landing/a.jsonl' },
    });
    expect(await refusal([['a.jsonl', '{"": 1}\n']])).toMatchObject({ code: '10-1009' });
  });
});

describe('a folder of several formats', () => {
  it('is refused with 10-1002 naming one file of each format, before any is read', async () => {
    const error = await refusal([
      ['a.csv', 'a\n1\n'],
      ['b.parquet', 'not even parquet'],
      ['c.jsonl', '{"a": 1}\n'],
    ]);
    expect(error.code).toBe('10-1002');
    expect(error.extraDetails?.cause).toBe(
      'the folder mixes file formats (landing/a.csv is CSV, landing/b.parquet is Parquet, landing/c.jsonl is JSON Lines); an import reads files of one format',
    );
  });
});
