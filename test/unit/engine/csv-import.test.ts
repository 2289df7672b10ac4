import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_PREVIEW_ROWS,
  DEFAULT_SAMPLE_ROWS,
  importCsvFiles,
  type CsvImportResult,
} from '../../../shared/engine/csv-import';
import { ColumnSchema, DataRow } from '../../../shared/model/columns';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

let dir: Scratch;
let runs = 0;
beforeAll(async () => {
  dir = await scratch('csv-import');
});
afterAll(async () => {
  await dir.remove();
});

/** Imports the files (named landing/<name>) into a fresh output folder. */
async function importFiles(
  files: Record<string, string>,
  limits: { sampleRows?: number; previewRows?: number } = {},
): Promise<CsvImportResult> {
  runs++;
  const sources = await Promise.all(
    Object.entries(files).map(async ([name, content], index) => ({
      localPath: await dir.file(`${runs}-${index}.csv`, content),
      source: `landing/${name}`,
    })),
  );
  return importCsvFiles(sources, {
    outDir: join(dir.dir, `out-${runs}`),
    sampleRows: limits.sampleRows ?? 100,
    previewRows: limits.previewRows ?? 100,
  });
}

const typesOf = (result: CsvImportResult) =>
  Object.fromEntries(result.columns.map((column) => [column.name, column.type]));

async function jsonLines(path: string): Promise<DataRow[]> {
  const text = await readFile(path, 'utf8');
  return text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((line) => DataRow.parse(JSON.parse(line)));
}

/** Rows of a Parquet file read back by a plain DuckDB, every value as text. */
function parquetText(path: string): Promise<(string | null)[][]> {
  return withPlainDuckDb(async (connection) => {
    const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet(${quotedString(path)})`);
    return reader.getRows().map((cells) => cells.map((cell) => (cell === null ? null : String(cell))));
  });
}

describe('importCsvFiles', () => {
  it('exports its defaults', () => {
    expect(DEFAULT_SAMPLE_ROWS).toBe(10_000);
    expect(DEFAULT_PREVIEW_ROWS).toBe(100);
  });

  it('detects types and writes the four outputs', async () => {
    const result = await importFiles({
      'sales.csv':
        'id,name,amount,day,at,flag,category\n1,Ann,12.5,2024-01-31,2024-01-31 10:11:12,true,a\n2,Bob,-3,2024-02-01,2024-02-01T00:00:00,false,b\n',
    });
    expect(result.rowCount).toBe(2);
    expect(typesOf(result)).toEqual({
      id: 'BIGINT',
      name: 'VARCHAR',
      amount: 'DOUBLE',
      day: 'DATE',
      at: 'TIMESTAMP',
      flag: 'BOOLEAN',
      category: 'VARCHAR',
    });
    expect(result.columns.every((column) => ColumnSchema.parse(column) && column.nullable)).toBe(true);
    expect(result.previewRows).toEqual([
      { id: 1, name: 'Ann', amount: 12.5, day: '2024-01-31', at: '2024-01-31T10:11:12', flag: true, category: 'a' },
      { id: 2, name: 'Bob', amount: -3, day: '2024-02-01', at: '2024-02-01T00:00:00', flag: false, category: 'b' },
    ]);
    expect(await jsonLines(result.sampleJsonPath)).toEqual(result.previewRows);
    expect(await parquetText(result.dataPath)).toEqual(await parquetText(result.samplePath));
    expect((await readdir(join(result.dataPath, '..'))).sort()).toEqual([
      'data.parquet',
      'sample.jsonl',
      'sample.parquet',
    ]);
  });

  it('keeps a quoted empty field as the empty string and reads an unquoted one as NULL', async () => {
    const result = await importFiles({ 'a.csv': 'a,b,c\n"",,x\n"y","",\n' });
    expect(result.previewRows).toEqual([
      { a: '', b: null, c: 'x' },
      { a: 'y', b: '', c: null },
    ]);
    expect(await parquetText(result.dataPath)).toEqual([
      ['', null, 'x'],
      ['y', '', null],
    ]);
  });

  it('keeps leading zeros, and integers beyond 2^53 exact as strings', async () => {
    const result = await importFiles({
      'a.csv': 'zip,big,small\n08123,9007199254740993,9007199254740991\n10115,-9007199254740993,-9007199254740991\n',
    });
    expect(typesOf(result)).toEqual({ zip: 'VARCHAR', big: 'BIGINT', small: 'BIGINT' });
    expect(result.previewRows).toEqual([
      { zip: '08123', big: '9007199254740993', small: 9007199254740991 },
      { zip: '10115', big: '-9007199254740993', small: -9007199254740991 },
    ]);
  });

  it('unions several files by column name, in file order', async () => {
    const result = await importFiles({
      'a.csv': 'id,name\n1,Ann\n2,Bob\n',
      'b.csv': 'name,id,extra\r\nCid,3,e\r\n',
      'empty.csv': '',
      'c.csv': 'id\n4\n',
    });
    expect(result.rowCount).toBe(4);
    expect(result.columns.map((column) => column.name)).toEqual(['id', 'name', 'extra']);
    expect(result.previewRows).toEqual([
      { id: 1, name: 'Ann', extra: null },
      { id: 2, name: 'Bob', extra: null },
      { id: 3, name: 'Cid', extra: 'e' },
      { id: 4, name: null, extra: null },
    ]);
  });

  it('adds the columns of a header-only file without rows', async () => {
    const result = await importFiles({ 'a.csv': 'id\n1\n', 'b.csv': 'id,note\n' });
    expect(result.rowCount).toBe(1);
    expect(result.previewRows).toEqual([{ id: 1, note: null }]);
  });

  it.each([
    ['semicolons', 'a;b\n1;"x;y"\n'],
    ['tabs', 'a\tb\n1\t"x;y"\n'],
    ['pipes', 'a|b\n1|"x;y"\n'],
  ])('reads files delimited by %s', async (_, content) => {
    const result = await importFiles({ 'a.csv': content });
    expect(result.previewRows).toEqual([{ a: 1, b: 'x;y' }]);
  });

  it('reads a byte-order mark, a one-column file, and a last line without line break', async () => {
    const result = await importFiles({ 'a.csv': '\uFEFFname\nSmith\n"Doe, Jane"' });
    expect(result.previewRows).toEqual([{ name: 'Smith' }, { name: 'Doe, Jane' }]);
  });

  it('keeps lines that start with # as data', async () => {
    const result = await importFiles({ 'a.csv': 'tag,n\n#one,1\n#two,2\n' });
    expect(result.previewRows).toEqual([
      { tag: '#one', n: 1 },
      { tag: '#two', n: 2 },
    ]);
  });

  it('reads again with every row as sample when a late value does not fit the sampled type', async () => {
    const rows = Array.from({ length: 30_000 }, (_, index) => `${index},${index % 7}\n`).join('');
    const result = await importFiles({ 'a.csv': `code,n\n${rows}A-1,7\n` });
    expect(result.rowCount).toBe(30_001);
    expect(typesOf(result)).toEqual({ code: 'VARCHAR', n: 'BIGINT' });
    expect(result.previewRows[0]).toEqual({ code: '0', n: 0 });
  });

  it('caps the sample and the preview, and the sample JSON lines are the sample rows', async () => {
    const rows = Array.from({ length: 250 }, (_, index) => `${index},item ${index},${index / 4}\n`).join('');
    const result = await importFiles({ 'a.csv': `id,label,ratio\n${rows}` }, { sampleRows: 120, previewRows: 7 });
    expect(result.rowCount).toBe(250);
    expect(result.previewRows).toHaveLength(7);
    expect(result.previewRows[6]).toEqual({ id: 6, label: 'item 6', ratio: 1.5 });

    const sample = await parquetText(result.samplePath);
    expect(sample).toHaveLength(120);
    expect(sample).toEqual((await parquetText(result.dataPath)).slice(0, 120));
    const lines = await jsonLines(result.sampleJsonPath);
    expect(lines).toHaveLength(120);
    expect(lines.map((row) => Object.values(row).map(String))).toEqual(sample);
    expect(lines.slice(0, 7)).toEqual(result.previewRows);
  });

  it('writes an empty sample and preview when asked for none', async () => {
    const result = await importFiles({ 'a.csv': 'a\n1\n2\n' }, { sampleRows: 0, previewRows: 0 });
    expect(result.rowCount).toBe(2);
    expect(result.previewRows).toEqual([]);
    expect(await parquetText(result.samplePath)).toEqual([]);
    expect(await jsonLines(result.sampleJsonPath)).toEqual([]);
  });

  it('reads a preview longer than the sample from the data', async () => {
    const result = await importFiles({ 'a.csv': 'a\n1\n2\n3\n' }, { sampleRows: 1, previewRows: 3 });
    expect(result.previewRows).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(await jsonLines(result.sampleJsonPath)).toEqual([{ a: 1 }]);
  });

  it('refuses row limits that are not non-negative integers', async () => {
    await expect(importFiles({ 'a.csv': 'a\n1\n' }, { sampleRows: -1 })).rejects.toThrow(RangeError);
    await expect(importFiles({ 'a.csv': 'a\n1\n' }, { previewRows: 1.5 })).rejects.toThrow(RangeError);
  });

  it('escapes paths and names in SQL', async () => {
    const localPath = await dir.file("it's; DROP TABLE x; --.csv", '"it\'s ""quoted""",b\n1,2\n');
    const result = await importCsvFiles([{ localPath, source: "landing/it's.csv" }], {
      outDir: join(dir.dir, "out 'quoted'"),
      sampleRows: 5,
      previewRows: 5,
    });
    expect(result.previewRows).toEqual([{ 'it\'s "quoted"': 1, b: 2 }]);
    expect(await jsonLines(result.sampleJsonPath)).toEqual(result.previewRows);
  });

  it('refuses a local path with glob characters without reading other files', async () => {
    const localPath = await dir.file('glob*.csv', 'a\n1\n');
    await expect(
      importCsvFiles([{ localPath, source: 'landing/a.csv' }], {
        outDir: join(dir.dir, 'out-glob'),
        sampleRows: 1,
        previewRows: 1,
      }),
    ).rejects.toMatchObject({
      code: '10-500',
    });
  });
});
