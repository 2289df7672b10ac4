import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../errors/app-error';
import type { ColumnSchema, DataRow } from '../model/columns';
import { withDuckDb } from './duckdb';
import { engineFailure, type PathName } from './engine-errors';
import { copyToParquet, describeParquet, parquetSource } from './parquet';
import { copyToJsonLines, readJsonSafeRows } from './values';

/**
 * What every file format's import shares: the format's reader writes data.parquet, and the
 * sample, its JSON lines, the preview and the schema are all taken from that Parquet file, so
 * a table reads the same whatever format it came from.
 */

/** One downloaded file of an import. */
export interface SourceFile {
  /**
   * The downloaded file. Workers name it: glob characters (* ? [ {) are not allowed, and its
   * extension names the format (file-signatures.ts; any other extension is read as CSV).
   */
  readonly localPath: string;
  /** Name shown to users, e.g. "landing/sales/a.csv". */
  readonly source: string;
}

export interface TableImportOptions {
  readonly outDir: string;
  readonly sampleRows: number;
  readonly previewRows: number;
  /** Aborted when the job is no longer running: the engine's statement is interrupted. */
  readonly signal?: AbortSignal;
}

export interface TableImportResult {
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

/** Writes every row to `dataPath` as Parquet; answers the number of rows (more than 0: an empty table is the loader's 10-1005). */
export type TableLoader = (connection: DuckDBConnection, dataPath: string) => Promise<number>;

type OutputPaths = Pick<TableImportResult, 'dataPath' | 'samplePath' | 'sampleJsonPath'>;

export const sourceNames = (files: readonly SourceFile[]): PathName[] =>
  files.map((file) => ({ path: file.localPath, name: file.source }));
export const outputName = (outDir: string): PathName => ({ path: outDir, name: 'output' });
/** The file a refusal names when there is only one. */
export const singleSource = (files: readonly SourceFile[]) => (files.length === 1 ? files[0]?.source : undefined);

function assertRowLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
}

/**
 * Runs `prepare` (the format's checks of the files, before any engine starts), then its
 * loader in a fresh DuckDB, then writes the sample, preview and schema. A refused import
 * leaves no half-written table behind; a failure that is no AppError is 10-500.
 */
export async function importTable(
  files: readonly SourceFile[],
  options: TableImportOptions,
  prepare: () => Promise<TableLoader>,
): Promise<TableImportResult> {
  assertRowLimit('sampleRows', options.sampleRows);
  assertRowLimit('previewRows', options.previewRows);
  const paths: OutputPaths = {
    dataPath: join(options.outDir, 'data.parquet'),
    samplePath: join(options.outDir, 'sample.parquet'),
    sampleJsonPath: join(options.outDir, 'sample.jsonl'),
  };
  try {
    const load = await prepare();
    await mkdir(options.outDir, { recursive: true });
    return await withDuckDb(
      options.outDir,
      async (connection) => {
        const rowCount = await load(connection, paths.dataPath);
        const columns = await describeParquet(connection, paths.dataPath);
        const data = parquetSource(paths.dataPath);
        await copyToParquet(connection, `SELECT * FROM ${data} LIMIT ${options.sampleRows}`, paths.samplePath);
        await copyToJsonLines(connection, parquetSource(paths.samplePath), columns, paths.sampleJsonPath);
        const previewRows = await readJsonSafeRows(connection, data, columns, options.previewRows);
        return { rowCount, columns, ...paths, previewRows };
      },
      options.signal,
    );
  } catch (error) {
    await Promise.all(Object.values(paths).map((path) => rm(path, { force: true })));
    throw isAppError(error) ? error : engineFailure(error, [...sourceNames(files), outputName(options.outDir)]);
  }
}
