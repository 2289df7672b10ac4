import { quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { checkCsvFile, type CheckedCsvFile, type CsvSourceFile } from './csv-file-check';
import type { Delimiter } from './csv-header';
import { csvReadFailure, engineError } from './engine-errors';
import { copyToParquet } from './parquet';
import { fileLiteral } from './sql';
import {
  importTable,
  outputName,
  singleSource,
  sourceNames,
  type TableImportOptions,
  type TableImportResult,
} from './table-import';

/**
 * CSV files (plain or gzip-compressed, ".csv.gz") to one Parquet table, in one pass over the
 * CSV: DuckDB converts the files, and the sample, its JSON lines, the preview, the row count
 * and the schema are all taken from the Parquet file it wrote (table-import.ts).
 *
 * How the files are read (DuckDB read_csv):
 * - the first line is the header; several files are one table, unioned by column name;
 * - delimiter from the header line (csv-header.ts), quote `"`, escape detected ("" or \");
 *   no comment lines, no skipped lines, strict column counts;
 * - an unquoted empty field is NULL, a quoted one ("") the empty string;
 * - column types are detected from a sample of rows (see convertToParquet).
 */

export type CsvImportOptions = TableImportOptions;
export type CsvImportResult = TableImportResult;

export const DEFAULT_SAMPLE_ROWS = 10_000;
export const DEFAULT_PREVIEW_ROWS = 100;

export async function importCsvFiles(
  files: readonly CsvSourceFile[],
  options: CsvImportOptions,
): Promise<CsvImportResult> {
  return importTable(files, options, async () => {
    const withContent = (await Promise.all(files.map(checkCsvFile))).filter((checked) => checked.hasContent);
    if (withContent.length === 0) throw engineError('10-1005', singleSource(files), 'no file holds any data');
    const delimiter = sharedDelimiter(withContent);
    const sources = withContent.map((checked) => checked.file);
    return async (connection, dataPath) => {
      const rowCount = await convertToParquet(connection, sources, delimiter, dataPath).catch((error: unknown) => {
        throw csvReadFailure(error, sourceNames(sources), [outputName(options.outDir)]);
      });
      if (rowCount === 0) throw engineError('10-1005', singleSource(sources), 'no data rows, only a header');
      return rowCount;
    };
  });
}

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

const isLateTypeMismatch = (error: unknown) =>
  error instanceof Error && /^Conversion Error: CSV Error/.test(error.message);

/**
 * Writes the CSV files to `dataPath`; answers the number of rows. When a value beyond the
 * sniffer's sample does not fit the type detected from the sample (text in a column sampled
 * as numbers), the files are read once more with every row as the sample: slower, but only
 * for such files.
 */
async function convertToParquet(
  connection: DuckDBConnection,
  files: readonly CsvSourceFile[],
  delimiter: Delimiter,
  dataPath: string,
): Promise<number> {
  const copy = (sampleEveryRow: boolean) =>
    copyToParquet(connection, `SELECT * FROM ${csvSource(files, delimiter, sampleEveryRow)}`, dataPath);
  try {
    return await copy(false);
  } catch (error) {
    if (!isLateTypeMismatch(error)) throw error;
    return await copy(true);
  }
}
