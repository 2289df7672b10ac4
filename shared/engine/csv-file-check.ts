import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { ErrorCode } from '../errors/catalogue';
import { headerLine, detectDelimiter, headerProblem, splitFields, type Delimiter } from './csv-header';
import { recognisedFormat, SIGNATURE_TAIL_BYTES } from './file-signatures';
import { engineError } from './engine-errors';

/**
 * Checks of a CSV file's first bytes, before DuckDB reads it. They are cheap (one read of at
 * most HEAD_BYTES per file) and give precise refusals where DuckDB's would be vague or
 * missing: DuckDB reads NUL bytes as text, and calls gzip "not utf-8 encoded".
 *
 * - another known format (Parquet, gzip, zip/xlsx, xls, bzip2, xz, zstd, 7z, PDF) → 10-1000;
 * - a NUL byte, or bytes that are not UTF-8, in the head → 10-1003 (further on, DuckDB's own
 *   UTF-8 check answers 10-1003 too, while a later NUL byte is kept as a character);
 * - a header name that cannot be a column name (csv-header.ts) → 10-1009;
 * - a header line that does not end within HEAD_BYTES, or ends inside quotes → 10-1002.
 */

/**
 * One CSV file of an import. It is defined here, with the first step that reads it, so that
 * csv-import.ts depends on this module and never the other way round.
 */
export interface CsvSourceFile {
  /** The downloaded file. Workers name it: glob characters (* ? [ {) are not allowed. */
  readonly localPath: string;
  /** Name shown to users, e.g. "landing/sales/a.csv". */
  readonly source: string;
}

/** Bytes read from the start of each file; a header line must fit in them. */
export const HEAD_BYTES = 1 << 20;

export interface CheckedCsvFile {
  readonly file: CsvSourceFile;
  /** False for a file of 0 bytes or only whitespace: it holds neither columns nor rows. */
  readonly hasContent: boolean;
  /** Delimiter of the header; undefined when the header has one column (any delimiter fits). */
  readonly delimiter: Delimiter | undefined;
}

interface FileEnds {
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly whole: boolean;
}

async function readEnds(path: string): Promise<FileEnds> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const { buffer: head, bytesRead } = await handle.read(
      Buffer.alloc(Math.min(size, HEAD_BYTES)),
      0,
      Math.min(size, HEAD_BYTES),
      0,
    );
    const whole = bytesRead >= size;
    if (whole)
      return {
        head: head.subarray(0, bytesRead),
        tail: head.subarray(Math.max(0, bytesRead - SIGNATURE_TAIL_BYTES), bytesRead),
        whole,
      };
    const { buffer: tail } = await handle.read(
      Buffer.alloc(SIGNATURE_TAIL_BYTES),
      0,
      SIGNATURE_TAIL_BYTES,
      size - SIGNATURE_TAIL_BYTES,
    );
    return { head: head.subarray(0, bytesRead), tail, whole };
  } finally {
    await handle.close();
  }
}

/**
 * The first HEAD_BYTES of a gzip-compressed file, decompressed. The compressed bytes must be
 * gzip (10-1000 for another known format, 10-1003 otherwise). The tail stays empty: the
 * decompressed end is not read, so only head-only signatures apply to what is inside.
 */
async function readGzipEnds(file: CsvSourceFile): Promise<FileEnds> {
  const raw = await readEnds(file.localPath);
  if (raw.head.length === 0) return raw;
  const format = recognisedFormat(raw.head, raw.tail);
  if (format !== 'gzip')
    throw engineError(
      format ? '10-1000' : '10-1003',
      file.source,
      `${format ? `${format} data` : 'not gzip data'}, not gzip-compressed CSV`,
    );
  const chunks: Buffer[] = [];
  let length = 0;
  let whole = true;
  const compressed = createReadStream(file.localPath);
  try {
    for await (const chunk of compressed.pipe(createGunzip()) as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= HEAD_BYTES) {
        whole = false;
        break;
      }
    }
  } catch (error) {
    if (length === 0)
      throw engineError(
        '10-1003',
        file.source,
        `not readable as gzip: ${error instanceof Error ? error.message : String(error)}`,
      );
  } finally {
    // Leaving the loop early ends the gunzip stream only; pipe() leaves its source open.
    compressed.destroy();
  }
  const head = Buffer.concat(chunks).subarray(0, HEAD_BYTES);
  return {
    head,
    tail: whole ? head.subarray(Math.max(0, head.length - SIGNATURE_TAIL_BYTES)) : Buffer.alloc(0),
    whole,
  };
}

/** The head as text; a multi-byte character cut at the end of a partial head is no error. */
function decodeUtf8(head: Buffer, whole: boolean): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !whole });
  } catch {
    return undefined;
  }
}

export async function checkCsvFile(file: CsvSourceFile): Promise<CheckedCsvFile> {
  // DuckDB decompresses by the same rule: a local name ending in ".gz".
  const { head, tail, whole } = await (/\.gz$/i.test(file.localPath) ? readGzipEnds(file) : readEnds(file.localPath));
  const refuse = (code: ErrorCode, cause: string) => engineError(code, file.source, cause);

  const format = recognisedFormat(head, tail);
  if (format) throw refuse('10-1000', `${format} data, not CSV text`);
  const nul = head.indexOf(0);
  if (nul >= 0) throw refuse('10-1003', `NUL byte at offset ${nul}: not a text file`);
  const text = decodeUtf8(head, whole);
  if (text === undefined) throw refuse('10-1003', 'not UTF-8 text');
  // TextDecoder has dropped a byte-order mark already, as DuckDB does.
  if (whole && text.trim() === '') return { file, hasContent: false, delimiter: undefined };

  const line = headerLine(text);
  if (!line.ended && !whole)
    throw refuse('10-1002', `the header line does not end within the first ${HEAD_BYTES / 2 ** 20} MiB`);
  if (line.inQuotes) throw refuse('10-1002', 'unterminated quote in the header line');
  const delimiter = detectDelimiter(line.text);
  const problem = headerProblem(splitFields(line.text, delimiter ?? ','));
  if (problem) throw refuse('10-1009', problem);
  return { file, hasContent: true, delimiter };
}
