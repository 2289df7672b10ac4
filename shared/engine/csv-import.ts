import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../errors/app-error';
import type { ColumnSchema, DataRow } from '../model/columns';
import { checkCsvFile, type CheckedCsvFile } from './csv-file-check';
import type { Delimiter } from './csv-header';
import { withDuckDb } from './duckdb';
import { csvReadFailure, engineFailure, engineError, type PathName } from './engine-errors';
import { copyToParquet, describeParquet, parquetSource } from './parquet';
import { fileLiteral } from './sql';
import { copyToJsonLines, readJsonSafeRows } from './values';

/**
 * CSV files to one Parquet table, in one pass over the CSV: DuckDB converts the files, and the
 * sample, its JSON lines, the preview, the row count and the schema are all taken from the
 * Parquet file it wrote.
 *
 * How the files are read (DuckDB read_csv):
 * - the first line is the header; several files are one table, unioned by column name;
 * - delimiter from the header line (csv-header.ts), quote `"`, escape detected ("" or \");
 *   no comment lines, no skipped lines, strict column counts;
 * - an unquoted empty field is NULL, a quoted one ("") the empty string;
 * - column types are detected from a sample of rows (see convertToParquet).
 */

export interface CsvSourceFile {
  /** The downloaded file. Workers name it: glob characters (* ? [ {) are not allowed. */
  readonly localPath: string;
  /** Name shown to users, e.g. "landing/sales/a.csv". */
  readonly source: string;
}

export interface CsvImportOptions {
  readonly outDir: string;
  readonly sampleRows: number;
  readonly previewRows: number;
}

export interface CsvImportResult {
  readonly rowCount: number;
  readonly columns: ColumnSchema[];
  /** <outDir>/data.parquet: all rows. */
  readonly dataPath: string;
  /** <outDir>/sample.parquet: the first sampleRows rows, same schema. */
  readonly samplePath: string;
  /** <outDir>/sample.jsonl: the rows of sample.parquet, one JSON object per line, JSON-safe values (values.ts). */
  readonly sampleJsonPath: string;
  /** The first previewRows rows, JSON-safe. */
  readonly previewRows: DataRow[];
}

export const DEFAULT_SAMPLE_ROWS = 10_000;
export const DEFAULT_PREVIEW_ROWS = 100;

type OutputPaths = Pick<CsvImportResult, 'dataPath' | 'samplePath' | 'sampleJsonPath'>;

export async function importCsvFiles(files: readonly CsvSourceFile[], options: CsvImportOptions): Promise<CsvImportResult> {
  assertRowLimit('sampleRows', options.sampleRows);
  assertRowLimit('previewRows', options.previewRows);
  const paths: OutputPaths = {
    dataPath: join(options.outDir, 'data.parquet'),
    samplePath: join(options.outDir, 'sample.parquet'),
    sampleJsonPath: join(options.outDir, 'sample.jsonl'),
  };
  try {
    return await importInto(files, options, paths);
  } catch (error) {
    // A refused import leaves no half-written table behind.
    await Promise.all(Object.values(paths).map((path) => rm(path, { force: true })));
    throw isAppError(error) ? error : engineFailure(error, [...sourceNames(files), outputName(options.outDir)]);
  }
}

async function importInto(files: readonly CsvSourceFile[], options: CsvImportOptions, paths: OutputPaths): Promise<CsvImportResult> {
  const withContent = (await Promise.all(files.map(checkCsvFile))).filter((checked) => checked.hasContent);
  if (withContent.length === 0) throw engineError('10-1005', singleSource(files), 'no file holds any data');
  const delimiter = sharedDelimiter(withContent);
  const sources = withContent.map((checked) => checked.file);
  await mkdir(options.outDir, { recursive: true });
  return withDuckDb(options.outDir, async (connection) => {
    const rowCount = await convertToParquet(connection, sources, delimiter, paths.dataPath).catch((error: unknown) => {
      throw csvReadFailure(error, sourceNames(sources), [outputName(options.outDir)]);
    });
    if (rowCount === 0) throw engineError('10-1005', singleSource(sources), 'no data rows, only a header');
    const columns = await describeParquet(connection, paths.dataPath);
    const data = parquetSource(paths.dataPath);
    await copyToParquet(connection, `SELECT * FROM ${data} LIMIT ${options.sampleRows}`, paths.samplePath);
    await copyToJsonLines(connection, parquetSource(paths.samplePath), columns, paths.sampleJsonPath);
    const previewRows = await readJsonSafeRows(connection, data, columns, options.previewRows);
    return { rowCount, columns, ...paths, previewRows };
  });
}

const sourceNames = (files: readonly CsvSourceFile[]): PathName[] => files.map((file) => ({ path: file.localPath, name: file.source }));
const outputName = (outDir: string): PathName => ({ path: outDir, name: 'output' });

function assertRowLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
}

const singleSource = (files: readonly CsvSourceFile[]) => (files.length === 1 ? files[0]?.source : undefined);

/** DuckDB reads all files with one delimiter; a file of one column fits any. */
function sharedDelimiter(files: readonly CheckedCsvFile[]): Delimiter {
  const delimited = files.filter((checked) => checked.delimiter !== undefined);
  const first = delimited[0];
  if (!first?.delimiter) return ',';
  const conflicting = delimited.find((checked) => checked.delimiter !== first.delimiter);
  if (conflicting) {
    throw engineError(
      '10-1002',
      conflicting.file.source,
      `delimiter ${JSON.stringify(conflicting.delimiter)} differs from ${JSON.stringify(first.delimiter)} in ${first.file.source}`,
    );
  }
  return first.delimiter;
}

function csvSource(files: readonly CsvSourceFile[], delimiter: Delimiter, sampleEveryRow: boolean): string {
  const options = [
    'header = true',
    'skip = 0',
    `delim = ${quotedString(delimiter)}`,
    `quote = '"'`,
    `comment = ''`,
    'allow_quoted_nulls = false',
    ...(files.length > 1 ? ['union_by_name = true'] : []),
    ...(sampleEveryRow ? ['sample_size = -1'] : []),
  ];
  return `read_csv([${files.map((file) => fileLiteral(file.localPath)).join(', ')}], ${options.join(', ')})`;
}

const isLateTypeMismatch = (error: unknown) => error instanceof Error && /^Conversion Error: CSV Error/.test(error.message);

/**
 * Writes the CSV files to `dataPath`; answers the number of rows. When a value beyond the
 * sniffer's sample does not fit the type detected from the sample (text in a column sampled
 * as numbers), the files are read once more with every row as the sample: slower, but only
 * for such files.
 */
async function convertToParquet(connection: DuckDBConnection, files: readonly CsvSourceFile[], delimiter: Delimiter, dataPath: string): Promise<number> {
  const copy = (sampleEveryRow: boolean) => copyToParquet(connection, `SELECT * FROM ${csvSource(files, delimiter, sampleEveryRow)}`, dataPath);
  try {
    return await copy(false);
  } catch (error) {
    if (!isLateTypeMismatch(error)) throw error;
    return await copy(true);
  }
}
