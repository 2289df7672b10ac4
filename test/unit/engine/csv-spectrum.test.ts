import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCsvFiles } from '../../../shared/engine/csv-import';
import type { DataRow } from '../../../shared/model/columns';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

/**
 * The csv-spectrum acid test: every CSV of the package imports to the values of its JSON
 * twin. Values are compared as text (String(value) for numbers and booleans), so a column
 * typed BIGINT passes as long as no digit is lost, and a quoted empty field must stay ''.
 */
const spectrumDir = dirname(createRequire(import.meta.url).resolve('csv-spectrum/package.json'));
const cases = readdirSync(join(spectrumDir, 'csvs'))
  .filter((name) => name.endsWith('.csv'))
  .map((name) => basename(name, '.csv'))
  .sort();

/**
 * The package's own expectations, with its two known fixture mistakes undone
 * (max-mapper/csv-spectrum issues #20 and #22): location_coordinates.json holds an object
 * instead of an array, and a phone number (1234567890) the CSV does not contain (2095257564).
 */
function expectedRows(name: string): Record<string, string>[] {
  const parsed = JSON.parse(readFileSync(join(spectrumDir, 'json', `${name}.json`), 'utf8')) as
    Record<string, string> | Record<string, string>[];
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  if (name === 'location_coordinates') return rows.map((row) => ({ ...row, 'Contact Phone Number': '2095257564' }));
  return rows;
}

const asText = (row: DataRow) =>
  Object.fromEntries(Object.entries(row).map(([column, value]) => [column, value === null ? null : String(value)]));

let dir: Scratch;
beforeAll(async () => {
  dir = await scratch('csv-spectrum');
});
afterAll(async () => {
  await dir.remove();
});

describe('csv-spectrum', () => {
  it('has the cases this suite names (CRLF, UTF-8, newlines in quotes, escaped quotes, JSON in CSV)', () => {
    expect(cases).toEqual(
      expect.arrayContaining([
        'empty_crlf',
        'newlines_crlf',
        'simple_crlf',
        'utf8',
        'newlines',
        'quotes_and_newlines',
        'escaped_quotes',
        'json',
        'comma_in_quotes',
      ]),
    );
  });

  it.each(cases)('%s imports with its expected values', async (name) => {
    const expected = expectedRows(name);
    const result = await importCsvFiles(
      [{ localPath: join(spectrumDir, 'csvs', `${name}.csv`), source: `spectrum/${name}.csv` }],
      {
        outDir: join(dir.dir, name),
        sampleRows: 100,
        previewRows: 100,
      },
    );

    expect(result.rowCount).toBe(expected.length);
    expect(result.columns.map((column) => column.name)).toEqual(Object.keys(expected[0] ?? {}));
    expect(result.previewRows.map(asText)).toEqual(expected);

    const jsonLines = (await readFile(result.sampleJsonPath, 'utf8')).trimEnd().split('\n');
    expect(jsonLines.map((line) => asText(JSON.parse(line) as DataRow))).toEqual(expected);

    // The Parquet file itself holds the same values (BIGINT and VARCHAR here), read back without the engine.
    const stored = await withPlainDuckDb(async (connection) => {
      const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet(${quotedString(result.dataPath)})`);
      return reader.getRows().map((cells) => cells.map((cell) => (cell === null ? null : String(cell))));
    });
    expect(stored).toEqual(expected.map((row) => Object.values(row)));
  });
});
