/**
 * The CSV of a multi-part export written as its parts (writeExportFiles with `continued`): one
 * COPY per row slice, the header in the first alone, so that the parts laid end to end are
 * byte for byte the CSV a single COPY of the same source writes.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeExportFiles } from '../../../shared/exports/engine';
import type { ExportShape } from '../../../shared/exports/jobs';
import { csvByDuckDb } from '../../support/exports';
import { scratch, withPlainDuckDb, type Scratch } from '../engine/scratch';

const ROWS = 10_000;
let dir: Scratch;

const shape = (overrides: Partial<ExportShape> = {}): ExportShape => ({
  source_type: 'datatable',
  source_id: 1,
  source_version: 1,
  use_sample: false,
  validate_release: false,
  columns: null,
  cast_boolean_to_integer: false,
  format: 'csv',
  ...overrides,
});

/** A Parquet source in several row groups whose values need quoting: commas, quotes, line breaks, NULLs. */
async function sourceFile(name: string, extraColumn: string): Promise<string> {
  const path = join(dir.dir, name);
  await withPlainDuckDb((connection) =>
    connection.run(
      `COPY (SELECT i AS id, ${extraColumn}, CASE WHEN i % 7 = 0 THEN NULL ELSE 'say "' || i || '", then' || chr(10) || 'stop' END AS note, i % 3 = 0 AS flag
       FROM range(${ROWS}) t(i)) TO ${quotedString(path)} (FORMAT parquet, ROW_GROUP_SIZE 2048)`,
    ),
  );
  return path;
}

async function written(
  source: string,
  files: number,
  exportShape: ExportShape,
  folder: string,
): Promise<{ bytes: Buffer; parts: Buffer[]; rows: number[] }> {
  const outDir = join(dir.dir, folder);
  await mkdir(outDir);
  const out = await writeExportFiles(source, exportShape, files, outDir, dir.dir, { continued: true });
  const parts = await Promise.all(out.map((file) => readFile(file.localPath)));
  return { bytes: Buffer.concat(parts), parts, rows: out.map((file) => file.rows) };
}

beforeAll(async () => {
  dir = await scratch('csv-parts');
});

afterAll(async () => {
  await dir?.remove();
});

describe('CSV written as the parts of one object', () => {
  it('lays the parts end to end into exactly the CSV one COPY writes, the rows spread evenly', async () => {
    const source = await sourceFile('plain.parquet', "'n' || i AS label");
    const { bytes, parts, rows } = await written(source, 4, shape({ cast_boolean_to_integer: true }), 'plain');
    const expected = await csvByDuckDb(
      await readFile(source),
      'SELECT id, label, note, CAST(flag AS INTEGER) AS flag FROM f0',
    );
    expect(rows).toEqual([2500, 2500, 2500, 2500]);
    expect(bytes.equals(expected)).toBe(true);
    // The header once, at the very start; each later part opens on its slice's first row.
    expect(parts[0]!.toString('utf8').startsWith('id,label,note,flag\n0,n0,')).toBe(true);
    expect(parts.slice(1).map((part) => part.toString('utf8').split(',', 1)[0])).toEqual(['2500', '5000', '7500']);
  });

  it('slices a source whose own column is named file_row_number by position all the same', async () => {
    // The column would shadow DuckDB's virtual row position: its values run backwards here.
    const source = await sourceFile('shadowed.parquet', `${ROWS} - i AS file_row_number`);
    const { bytes, parts, rows } = await written(
      source,
      3,
      shape({ columns: ['file_row_number', 'id', 'note'] }),
      'shadowed',
    );
    const expected = await csvByDuckDb(await readFile(source), 'SELECT file_row_number, id, note FROM f0');
    expect(rows).toEqual([3333, 3333, 3334]);
    expect(bytes.equals(expected)).toBe(true);
    expect(parts.slice(1).map((part) => part.toString('utf8').split('\n', 1)[0])).toEqual([
      '6667,3333,"say ""3333"", then',
      '3334,6666,"say ""6666"", then',
    ]);
  });

  it('stops writing at the file the caller refuses', async () => {
    const source = await sourceFile('stopped.parquet', 'i * 2 AS twice');
    const outDir = join(dir.dir, 'stopped');
    await mkdir(outDir);
    const seen: number[] = [];
    const out = await writeExportFiles(source, shape(), 4, outDir, dir.dir, {
      continued: true,
      onFile: (file, index) => {
        seen.push(index);
        return index < 1;
      },
    });
    expect(seen).toEqual([0, 1]);
    expect(out.map((file) => file.rows)).toEqual([2500, 2500]);
  });
});
