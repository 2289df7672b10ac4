import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCsvFiles } from '../../../shared/engine/csv-import';
import { AppError } from '../../../shared/errors/app-error';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

/**
 * Every refusal of a CSV import, each with a crafted file: the code, the offending file's
 * source name, a cause, and no local path anywhere the user could see it.
 */
let dir: Scratch;
let runs = 0;
beforeAll(async () => {
  dir = await scratch('csv-refusals');
});
afterAll(async () => {
  await dir.remove();
});

type Content = string | Uint8Array;

/** Imports files named `landing/<name>` and answers the AppError it fails with. */
async function refusal(files: Record<string, Content>): Promise<AppError> {
  runs++;
  const sources = await Promise.all(
    Object.entries(files).map(async ([name, content], index) => ({
      localPath: await dir.file(`${runs}-${index}.csv`, content),
      source: `landing/${name}`,
    })),
  );
  const outDir = join(dir.dir, `out-${runs}`);
  const error: unknown = await importCsvFiles(sources, { outDir, sampleRows: 10, previewRows: 10 }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  const refused = error as AppError;
  const visible = JSON.stringify([refused.message, refused.extraDetails]);
  expect(visible).not.toContain(dir.dir);
  expect(visible).not.toContain(os.tmpdir());
  expect(typeof refused.extraDetails?.cause).toBe('string');
  for (const output of ['data.parquet', 'sample.parquet', 'sample.jsonl'])
    expect(existsSync(join(outDir, output))).toBe(false);
  return refused;
}

const rows = (count: number, row: string) => row.repeat(count);

describe('10-1005: no data', () => {
  it.each([
    ['an empty file', ''],
    ['a header without rows', 'a,b\n'],
    ['a header without rows nor line break', 'a,b'],
    ['only blank lines', '\n  \r\n'],
  ])('refuses %s', async (_, content) => {
    const error = await refusal({ 'a.csv': content });
    expect(error.code).toBe('10-1005');
    expect(error.extraDetails?.file).toBe('landing/a.csv');
  });

  it('refuses several files that hold no row between them', async () => {
    const error = await refusal({ 'a.csv': '', 'b.csv': 'x,y\n', 'c.csv': 'y,z\r\n' });
    expect(error.code).toBe('10-1005');
    expect(error.extraDetails?.file).toBeUndefined();
  });

  it('refuses an empty list of files', async () => {
    expect((await refusal({})).code).toBe('10-1005');
  });
});

describe('10-1009: a header name that cannot be a column name', () => {
  it.each([
    ['a line break inside a quoted name', '"a\nb",c\n1,2\n'],
    ['a carriage return inside a quoted name', '"a\rb",c\n1,2\n'],
    ['a control character', 'a\u0001,b\n1,2\n'],
    ['an empty name', 'a,,c\n1,2,3\n'],
    ['a trailing delimiter (empty last name)', 'a,b,\n1,2,3\n'],
    ['a name of spaces', 'a,  ,c\n1,2,3\n'],
    ['a name of 256 characters', `${'x'.repeat(256)},b\n1,2\n`],
    ['a duplicate name', 'id,name,id\n1,2,3\n'],
    ['names equal but for case', 'Id,iD\n1,2\n'],
  ])('refuses %s', async (_, content) => {
    const error = await refusal({ 'a.csv': content });
    expect(error.code).toBe('10-1009');
    expect(error.extraDetails?.file).toBe('landing/a.csv');
  });

  it('names the offending file among several', async () => {
    const error = await refusal({ 'good.csv': 'a,b\n1,2\n', 'bad.csv': 'a,A\n1,2\n' });
    expect(error).toMatchObject({ code: '10-1009', extraDetails: { file: 'landing/bad.csv' } });
  });
});

describe('10-1003: not text', () => {
  it.each([
    ['a NUL byte', 'a,b\n1,x\u0000y\n'],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('\n')]),
    ],
    ['UTF-16 text', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,2\n', 'utf16le')])],
    ['random binary bytes', Buffer.from([0x01, 0x02, 0x80, 0x81, 0x00, 0xff])],
  ])('refuses %s', async (_, content) => {
    const error = await refusal({ 'a.csv': content });
    expect(error.code).toBe('10-1003');
    expect(error.extraDetails?.file).toBe('landing/a.csv');
  });

  it('refuses bytes that are not UTF-8 beyond the first MiB (DuckDB finds them)', async () => {
    const content = Buffer.concat([
      Buffer.from(`a,b\n${rows(200_000, '1,abcdef\n')}`),
      Buffer.from([0x32, 0x2c, 0xc3, 0x28, 0x0a]),
    ]);
    const error = await refusal({ 'first.csv': 'a,b\n1,x\n', 'late.csv': content });
    expect(error).toMatchObject({ code: '10-1003', extraDetails: { file: 'landing/late.csv' } });
    expect(error.extraDetails?.cause).toMatch(/unicode/i);
  });
});

describe('10-1000: another file type', () => {
  it.each([
    ['gzip', gzipSync('a,b\n1,2\n')],
    [
      'zip (xlsx)',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.from('[Content_Types].xml')]),
    ],
    ['legacy Excel', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00])],
    ['PDF', '%PDF-1.7\n%âãÏÓ\n'],
  ])('refuses %s', async (_, content) => {
    const error = await refusal({ 'a.csv': content });
    expect(error.code).toBe('10-1000');
    expect(error.extraDetails?.file).toBe('landing/a.csv');
  });

  it('refuses a Parquet file', async () => {
    const parquet = join(dir.dir, 'real.parquet');
    await withPlainDuckDb((connection) =>
      connection.run(`COPY (SELECT 1 AS a, 'x' AS b) TO ${quotedString(parquet)} (FORMAT parquet)`),
    );
    await rename(parquet, join(dir.dir, 'parquet.csv'));
    const error: unknown = await importCsvFiles(
      [{ localPath: join(dir.dir, 'parquet.csv'), source: 'landing/data.csv' }],
      {
        outDir: join(dir.dir, 'out-parquet'),
        sampleRows: 1,
        previewRows: 1,
      },
    ).catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      code: '10-1000',
      extraDetails: { file: 'landing/data.csv', cause: 'landing/data.csv: Parquet data, not CSV text' },
    });
  });

  it('accepts a CSV whose header starts like a signature', async () => {
    const result = await importCsvFiles(
      [{ localPath: await dir.file('par1.csv', 'PAR1,BZh\n1,2\n'), source: 'landing/par1.csv' }],
      {
        outDir: join(dir.dir, 'out-par1'),
        sampleRows: 1,
        previewRows: 1,
      },
    );
    expect(result.previewRows).toEqual([{ PAR1: 1, BZh: 2 }]);
  });
});

describe('10-1002: parse errors', () => {
  it.each([
    ['a row with too many fields', 'a,b\n1,2\n3,4,5\n'],
    ['a row with too few fields', 'a,b,c\n1,2,3\n4,5\n'],
    ['an unterminated quote', 'a,b\n"x,y",1\n"abc,2\n3,4\n'],
    ['an unterminated quote in the header', 'a,"b\n1,2\n'],
    ['text after a closing quote', 'a,b\n"x"y,1\n'],
    ['a row with too many fields beyond the sniffer sample', `a,b\n${rows(50_000, '1,2\n')}3,4,5\n`],
  ])('refuses %s', async (_, content) => {
    const error = await refusal({ 'a.csv': content });
    expect(error.code).toBe('10-1002');
    expect(error.extraDetails?.file).toBe('landing/a.csv');
  });

  it('refuses files with different delimiters, naming the second', async () => {
    const error = await refusal({ 'comma.csv': 'a,b\n1,2\n', 'semicolon.csv': 'a;b\n1;2\n' });
    expect(error).toMatchObject({ code: '10-1002', extraDetails: { file: 'landing/semicolon.csv' } });
  });

  it('shows a short cause with the source name instead of the local path', async () => {
    const error = await refusal({ 'sales/2024.csv': `a,b\n${rows(50_000, '1,2\n')}3,4,5\n` });
    const cause = String(error.extraDetails?.cause);
    expect(cause).toContain('landing/sales/2024.csv');
    expect(cause).not.toMatch(/Possible|LINE 1|delimiter =/);
    expect(cause).toBe(
      'landing/sales/2024.csv: Invalid Input Error: CSV Error on Line: 50002; Original Line: 3,4,5; Expected Number of Columns: 2 Found: 3',
    );
  });
});
