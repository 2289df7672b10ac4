import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../errors/app-error';
import { headerProblem } from './csv-header';
import { engineError, redactPaths, shortCause } from './engine-errors';
import { recognisedFormat, SIGNATURE_TAIL_BYTES } from './file-signatures';
import { copyToParquet, parquetSource } from './parquet';
import { fileLiteral } from './sql';
import {
  importTable,
  outputName,
  singleSource,
  sourceNames,
  type SourceFile,
  type TableImportOptions,
  type TableImportResult,
} from './table-import';

/**
 * Parquet files to one table. Several files are one table unioned by column name, as for CSV
 * (read_parquet union_by_name: a column missing from a file is NULL there, and a column of
 * different types in two files takes the type both convert to). The names each file holds are
 * checked as CSV header names are (10-1009), since union_by_name matches them ignoring case.
 * A file of 0 bytes holds nothing and is skipped; a file that is not Parquet is 10-1000 when
 * its bytes are another known format, 10-1003 otherwise.
 */
export async function importParquetFiles(
  files: readonly SourceFile[],
  options: TableImportOptions,
): Promise<TableImportResult> {
  return importTable(files, options, async () => {
    const withContent = (await Promise.all(files.map(checkParquetFile))).filter(
      (file): file is SourceFile => file !== undefined,
    );
    if (withContent.length === 0) throw engineError('10-1005', singleSource(files), 'no file holds any data');
    return async (connection, dataPath) => {
      const known = [...sourceNames(withContent), outputName(options.outDir)];
      const fail = (error: unknown): never => {
        const message = error instanceof Error ? error.message : String(error);
        const file = withContent.find(({ localPath }) => message.includes(localPath))?.source;
        // A damaged footer or page is the file's fault; columns that cannot be unioned are read
        // as one table and fail like CSV values; anything else (memory, disk) is ours.
        const code = /^Invalid Input Error/.test(message)
          ? '10-1003'
          : /^Conversion Error/.test(message)
            ? '10-1002'
            : '10-500';
        throw engineError(code, file, shortCause(redactPaths(message, known)), error);
      };
      let rowCount: number;
      try {
        for (const file of withContent) await checkColumnNames(connection, file);
        rowCount = await copyToParquet(connection, `SELECT * FROM ${parquetFiles(withContent)}`, dataPath);
      } catch (error) {
        if (isAppError(error)) throw error;
        return fail(error);
      }
      if (rowCount === 0) throw engineError('10-1005', singleSource(withContent), 'no rows');
      return rowCount;
    };
  });
}

function parquetFiles(files: readonly SourceFile[]): string {
  if (files.length === 1) return parquetSource(files[0]!.localPath);
  return `read_parquet([${files.map((file) => fileLiteral(file.localPath)).join(', ')}], union_by_name = true)`;
}

/** The file when it holds Parquet data, undefined when it is empty; a refusal otherwise. */
async function checkParquetFile(file: SourceFile): Promise<SourceFile | undefined> {
  const handle = await open(file.localPath, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return undefined;
    const { buffer: head } = await handle.read(Buffer.alloc(Math.min(size, 16)), 0, Math.min(size, 16), 0);
    const tailLength = Math.min(size, SIGNATURE_TAIL_BYTES);
    const { buffer: tail } = await handle.read(Buffer.alloc(tailLength), 0, tailLength, size - tailLength);
    const format = recognisedFormat(head, tail);
    if (format === 'Parquet') return file;
    if (format) throw engineError('10-1000', file.source, `${format} data, not Parquet`);
    throw engineError('10-1003', file.source, 'not a Parquet file: no PAR1 signature at both ends');
  } finally {
    await handle.close();
  }
}

/**
 * Names of the file's top-level columns as its footer spells them (parquet_schema lists the
 * schema depth first, the root first); 10-1009 for names a table cannot hold. DESCRIBE would
 * show them after DuckDB's renaming ("id" beside "Id" becomes "id_1"), which hides the problem.
 */
async function checkColumnNames(connection: DuckDBConnection, file: SourceFile): Promise<void> {
  const reader = await connection.runAndReadAll(
    `SELECT name, num_children FROM parquet_schema(${fileLiteral(file.localPath)})`,
  );
  const elements = reader
    .getRowObjects()
    .map((row) => ({ name: String(row.name), children: Number(row.num_children ?? 0) }));
  const names: string[] = [];
  // Walks the root's children, skipping each one's descendants.
  let index = 1;
  for (let column = 0; column < (elements[0]?.children ?? 0) && index < elements.length; column++) {
    names.push(elements[index]!.name);
    let pending = elements[index]!.children;
    index += 1;
    while (pending > 0 && index < elements.length) {
      pending += elements[index]!.children - 1;
      index += 1;
    }
  }
  const problem = headerProblem(names);
  if (problem) throw engineError('10-1009', file.source, problem);
}
