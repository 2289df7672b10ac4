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

const COPY_OPTIONS: Readonly<Record<ExportFormat, string>> = {
  parquet: 'FORMAT parquet',
  // RFC 4180: comma, double-quote quoting, a header row.
  csv: "FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"'",
};

/**
 * The select list of an export: the columns asked (or all, in the source's order), booleans
 * as integers when asked (true → 1, false → 0, null stays null). Columns were checked against
 * the stored schema when the export was requested; one missing now is 30-6001's business.
 */
function selectList(columns: readonly { name: string; type: string }[], shape: Pick<ExportShape, 'columns' | 'cast_boolean_to_integer'>): string {
  const byName = new Map(columns.map((column) => [column.name, column]));
  const chosen = shape.columns ?? columns.map((column) => column.name);
  return chosen
    .map((name) => {
      const column = byName.get(name);
      if (!column) throw new Error(`column ${JSON.stringify(name)} is not in the source file`);
      const quoted = quotedIdentifier(name);
      return shape.cast_boolean_to_integer && column.type === 'BOOLEAN' ? `CAST(${quoted} AS INTEGER) AS ${quoted}` : quoted;
    })
    .join(', ');
}

/** Rows of file `index` of `files`: as even as can be, the first files taking the remainder. */
function rowRange(total: number, files: number, index: number): { offset: number; limit: number } {
  const offset = Math.floor((index * total) / files);
  return { offset, limit: Math.floor(((index + 1) * total) / files) - offset };
}

async function copyRows(connection: DuckDBConnection, select: string, path: string, format: ExportFormat): Promise<number> {
  const result = await connection.run(`COPY (${select}) TO ${fileLiteral(path)} (${COPY_OPTIONS[format]})`);
  return result.rowsChanged;
}

/**
 * The worker core every export shares: reads the source Parquet (a local copy) and writes
 * the export's output to `outDir` as `files` files in the export's format, the source's rows
 * in order, spread evenly (a file may be empty when there are fewer rows than files).
 */
export async function writeExportFiles(sourcePath: string, shape: ExportShape, files: number, outDir: string, workDir: string): Promise<ExportFile[]> {
  return withDuckDb(workDir, async (connection) => {
    const columns = await describeParquet(connection, sourcePath);
    const from = parquetSource(sourcePath);
    const counted = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${from}`);
    const total = Number(counted.getRowObjects()[0]?.n ?? 0);
    const select = `SELECT ${selectList(columns, shape)} FROM ${from}`;
    const written: ExportFile[] = [];
    for (let index = 0; index < files; index += 1) {
      const localPath = join(outDir, `part-${index + 1}${FORMAT_EXTENSIONS[shape.format]}`);
      // One file keeps the source's order without a limit; several take consecutive slices
      // (DuckDB preserves insertion order, so the slices neither overlap nor miss a row).
      const { offset, limit } = rowRange(total, files, index);
      const rows = await copyRows(connection, files === 1 ? select : `${select} LIMIT ${limit} OFFSET ${offset}`, localPath, shape.format);
      written.push({ localPath, rows, bytes: (await stat(localPath)).size });
    }
    return written;
  });
}
