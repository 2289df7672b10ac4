import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../errors/app-error';
import { headerProblem } from './csv-header';
import { declaredSelectList, jsonColumnsOption, type DeclaredColumn } from './declared-columns';
import { HEAD_BYTES } from './csv-file-check';
import { engineError, redactPaths, shortCause } from './engine-errors';
import { recognisedFormat, SIGNATURE_TAIL_BYTES } from './file-signatures';
import { copyToParquet } from './parquet';
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
 * JSON Lines files (".jsonl", ".ndjson": one JSON object per line) to one table, read by
 * DuckDB's read_json:
 * - each top-level key is a column; several files are one table unioned by key name;
 * - a key missing from a line is NULL; nested objects and arrays become STRUCT and LIST columns;
 * - column types are detected from a sample of lines; when a later line does not fit them,
 *   the files are read again with every line as the sample (as for CSV);
 * - a line that is not a JSON object is 10-1002; another known binary format 10-1000; bytes
 *   that are not UTF-8 10-1003; key names are checked as CSV header names are (10-1009): in
 *   the first MiB of each file before DuckDB reads it, and as DuckDB names the columns;
 * - `declared`: the columns and types the source system declares (declared-columns.ts), read
 *   as such instead of detected; a key outside them is not read.
 */
export async function importJsonLinesFiles(
  files: readonly SourceFile[],
  options: TableImportOptions,
  declared?: readonly DeclaredColumn[],
): Promise<TableImportResult> {
  return importTable(files, options, async () => {
    const withContent = (await Promise.all(files.map(checkJsonLinesFile))).filter(
      (file): file is SourceFile => file !== undefined,
    );
    if (withContent.length === 0) throw engineError('10-1005', singleSource(files), 'no file holds any data');
    return async (connection, dataPath) => {
      const known = [...sourceNames(withContent), outputName(options.outDir)];
      let rowCount: number;
      try {
        rowCount = await (declared
          ? convertDeclared(connection, withContent, declared, dataPath)
          : convert(connection, withContent, dataPath));
      } catch (error) {
        if (isAppError(error)) throw error;
        const message = error instanceof Error ? error.message : String(error);
        const file = withContent.find(({ localPath }) => message.includes(localPath))?.source;
        const code = /unicode|utf-8/i.test(message)
          ? '10-1003'
          : /^(Invalid Input|Conversion) Error|^Binder Error: json_read/.test(message)
            ? '10-1002'
            : '10-500';
        throw engineError(code, file, shortCause(redactPaths(message, known)), error);
      }
      if (rowCount === 0) throw engineError('10-1005', singleSource(withContent), 'no rows');
      return rowCount;
    };
  });
}

function jsonSource(
  files: readonly SourceFile[],
  sampleEveryLine: boolean,
  declared?: readonly DeclaredColumn[],
): string {
  const options = [
    "format = 'newline_delimited'",
    "records = 'true'",
    'union_by_name = true',
    ...(sampleEveryLine ? ['sample_size = -1'] : []),
    ...(declared ? [jsonColumnsOption(declared)] : []),
  ];
  return `read_json([${files.map((file) => fileLiteral(file.localPath)).join(', ')}], ${options.join(', ')})`;
}

async function convert(connection: DuckDBConnection, files: readonly SourceFile[], dataPath: string): Promise<number> {
  const copy = async (sampleEveryLine: boolean) => {
    const source = jsonSource(files, sampleEveryLine);
    const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
    const problem = headerProblem(reader.getRowObjects().map((row) => String(row.column_name)));
    if (problem) throw engineError('10-1009', singleSource(files), problem);
    return copyToParquet(connection, `SELECT * FROM ${source}`, dataPath);
  };
  try {
    return await copy(false);
  } catch (error) {
    if (
      isAppError(error) ||
      !(
        error instanceof Error &&
        /^(Conversion|Invalid Input) Error/.test(error.message) &&
        /type|convert|cast/i.test(error.message)
      )
    )
      throw error;
    return await copy(true);
  }
}

/** Loads the lines with the declared types: nothing to detect, so nothing to read again. */
async function convertDeclared(
  connection: DuckDBConnection,
  files: readonly SourceFile[],
  declared: readonly DeclaredColumn[],
  dataPath: string,
): Promise<number> {
  const problem = headerProblem(declared.map((column) => column.name));
  if (problem) throw engineError('10-1009', singleSource(files), problem);
  return copyToParquet(
    connection,
    `SELECT ${declaredSelectList(declared)} FROM ${jsonSource(files, false, declared)}`,
    dataPath,
  );
}

/**
 * The distinct keys of the objects on the complete lines of `text`. DuckDB renames keys it
 * cannot hold as distinct columns ("A" beside "a" becomes "A_1", "" becomes "C0"), so they
 * are checked before, as CSV headers are; keys first seen beyond the head are as DuckDB names them.
 */
function keysOfLines(text: string, whole: boolean): string[] {
  const lines = text.split('\n');
  if (!whole) lines.pop();
  const keys = new Set<string>();
  for (const line of lines) {
    let value: unknown;
    try {
      value = line.trim() === '' ? undefined : JSON.parse(line);
    } catch {
      // DuckDB reports the malformed line with its number (10-1002).
      continue;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      for (const key of Object.keys(value)) keys.add(key);
  }
  return [...keys];
}

/** The file when it holds text, undefined when it holds only whitespace; a refusal for a known binary format. */
async function checkJsonLinesFile(file: SourceFile): Promise<SourceFile | undefined> {
  const handle = await open(file.localPath, 'r');
  try {
    const { size } = await handle.stat();
    const headLength = Math.min(size, HEAD_BYTES);
    const { buffer: head } = await handle.read(Buffer.alloc(headLength), 0, headLength, 0);
    const tailLength = Math.min(size, SIGNATURE_TAIL_BYTES);
    const { buffer: tail } = await handle.read(Buffer.alloc(tailLength), 0, tailLength, size - tailLength);
    const format = recognisedFormat(head, tail);
    if (format) throw engineError('10-1000', file.source, `${format} data, not JSON Lines text`);
    if (head.includes(0)) throw engineError('10-1003', file.source, 'NUL byte: not a text file');
    const text = head.toString('utf8');
    if (size === headLength && text.trim() === '') return undefined;
    const problem = headerProblem(keysOfLines(text, size === headLength));
    if (problem) throw engineError('10-1009', file.source, problem);
    return file;
  } finally {
    await handle.close();
  }
}
