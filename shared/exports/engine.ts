import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { withDuckDb } from '../engine/duckdb';
import { describeParquet, parquetSource } from '../engine/parquet';
import { fileLiteral } from '../engine/sql';
import type { ExportFormat } from '../model/export';
import type { ExportShape } from './jobs';

/** One file of an export's output, in the worker's scratch folder. */
export interface ExportFile {
  readonly localPath: string;
  readonly bytes: number;
  readonly rows: number;
}

export const FORMAT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = { parquet: '.parquet', csv: '.csv' };

/** RFC 4180: comma, double-quote quoting, a header row (unless the file continues another). */
function copyOptions(format: ExportFormat, header: boolean): string {
  return format === 'parquet' ? 'FORMAT parquet' : `FORMAT csv, HEADER ${header}, DELIMITER ',', QUOTE '"'`;
}

/** How the files of an export are written, beyond their shape. */
export interface ExportWriteOptions {
  /** Aborted when the job is no longer running: the engine's statement is interrupted. */
  readonly signal?: AbortSignal;
  /**
   * CSV only: the header in the first file alone, so that the files laid end to end are
   * byte for byte the one file a single COPY writes (the parts of one object).
   */
  readonly continued?: boolean;
  /**
   * Told of each file as soon as it is written, before the next one starts (to send it while
   * DuckDB writes the next); answering false stops the writing there.
   */
  readonly onFile?: (file: ExportFile, index: number) => boolean;
}

/**
 * The select list of an export: the columns asked (or all, in the source's order), booleans
 * as integers when asked (true → 1, false → 0, null stays null). Columns were checked against
 * the stored schema when the export was requested; one missing now is 30-6001's business.
 */
function selectList(
  columns: readonly { name: string; type: string }[],
  shape: Pick<ExportShape, 'columns' | 'cast_boolean_to_integer'>,
): string {
  const byName = new Map(columns.map((column) => [column.name, column]));
  const chosen = shape.columns ?? columns.map((column) => column.name);
  return chosen
    .map((name) => {
      const column = byName.get(name);
      if (!column) throw new Error(`column ${JSON.stringify(name)} is not in the source file`);
      const quoted = quotedIdentifier(name);
      return shape.cast_boolean_to_integer && column.type === 'BOOLEAN'
        ? `CAST(${quoted} AS INTEGER) AS ${quoted}`
        : quoted;
    })
    .join(', ');
}

/** Rows of file `index` of `files`: as even as can be, the first files taking the remainder. */
function rowRange(total: number, files: number, index: number): { offset: number; limit: number } {
  const offset = Math.floor((index * total) / files);
  return { offset, limit: Math.floor(((index + 1) * total) / files) - offset };
}

/** DuckDB's virtual column of a Parquet scan: each row's position in the file. */
const FILE_ROW_NUMBER = 'file_row_number';

/**
 * The rows `offset` to `offset + limit` of the source (exports' slices, transfers' batches). A filter on the virtual file_row_number
 * is pushed into the Parquet scan: row groups outside the slice are skipped and the slice is
 * read in parallel, in the file's order. A source column of that name would shadow it (and
 * answer other rows): then LIMIT/OFFSET, which reads the file from its start.
 */
export function sliceOf(select: string, columns: readonly { name: string }[], offset: number, limit: number): string {
  if (columns.some((column) => column.name === FILE_ROW_NUMBER)) return `${select} LIMIT ${limit} OFFSET ${offset}`;
  return `${select} WHERE ${FILE_ROW_NUMBER} >= ${offset} AND ${FILE_ROW_NUMBER} < ${offset + limit}`;
}

async function copyRows(
  connection: DuckDBConnection,
  select: string,
  path: string,
  format: ExportFormat,
  header: boolean,
): Promise<number> {
  const result = await connection.run(`COPY (${select}) TO ${fileLiteral(path)} (${copyOptions(format, header)})`);
  return result.rowsChanged;
}

/**
 * The worker core every export shares: reads the source Parquet (a local copy) and writes
 * the export's output to `outDir` as `files` files in the export's format, the source's rows
 * in order, spread evenly (a file may be empty when there are fewer rows than files). Answers
 * the files written: all of them, or those up to the one `options.onFile` stopped at.
 */
export async function writeExportFiles(
  sourcePath: string,
  shape: ExportShape,
  files: number,
  outDir: string,
  workDir: string,
  options: ExportWriteOptions = {},
): Promise<ExportFile[]> {
  return withDuckDb(
    workDir,
    async (connection) => {
      const columns = await describeParquet(connection, sourcePath);
      const from = parquetSource(sourcePath);
      const counted = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${from}`);
      const total = Number(counted.getRowObjects()[0]?.n ?? 0);
      const select = `SELECT ${selectList(columns, shape)} FROM ${from}`;
      const written: ExportFile[] = [];
      for (let index = 0; index < files; index += 1) {
        const localPath = join(outDir, `part-${index + 1}${FORMAT_EXTENSIONS[shape.format]}`);
        // One file keeps the source's order without a filter; several take consecutive slices
        // (DuckDB preserves insertion order, so the slices neither overlap nor miss a row).
        const { offset, limit } = rowRange(total, files, index);
        const header = !options.continued || index === 0;
        const rows = await copyRows(
          connection,
          files === 1 ? select : sliceOf(select, columns, offset, limit),
          localPath,
          shape.format,
          header,
        );
        const file = { localPath, rows, bytes: (await stat(localPath)).size };
        written.push(file);
        if (options.onFile?.(file, index) === false) break;
      }
      return written;
    },
    options.signal,
  );
}
