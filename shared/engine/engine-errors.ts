import os from 'node:os';
import { basename } from 'node:path';
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/catalogue';

/**
 * How an engine failure reaches the user: an AppError whose extraDetails carry `file` (the
 * source name of the offending file, when known) and `cause` (a short technical root cause,
 * shown as execution.error.cause). Local paths never appear in either: they say nothing to
 * the user and describe the worker. A failure that is not the data's fault is 10-500, with
 * the same redacted cause.
 */

/** A local path and the name the user knows the file by. */
export interface PathName {
  readonly path: string;
  readonly name: string;
}

const MAX_CAUSE_LENGTH = 500;
const MAX_CAUSE_LINE_LENGTH = 200;

/**
 * The cause names the file too: the user sees the cause (execution.error.cause) but not
 * extraDetails.file.
 */
export function engineError(code: ErrorCode, file: string | undefined, cause: string, root?: unknown): AppError {
  if (file === undefined) return new AppError(code, { extraDetails: { cause }, cause: root });
  const namedCause = cause.includes(file) ? cause : `${file}: ${cause}`;
  return new AppError(code, { extraDetails: { file, cause: namedCause }, cause: root });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` with each known path replaced by its name, then any other path under the system's
 * temporary folder cut to its file name.
 */
export function redactPaths(text: string, known: readonly PathName[]): string {
  const longestFirst = [...known].sort((a, b) => b.path.length - a.path.length);
  const named = longestFirst.reduce((result, { path, name }) => result.split(path).join(name), text);
  const temporaryPath = new RegExp(`${escapeRegExp(os.tmpdir())}[^\\s'"]*`, 'g');
  return named.replace(temporaryPath, (path) => basename(path));
}

/**
 * DuckDB's message reduced to what explains the failure: its first lines, without the
 * suggested fixes, the dump of reader options and the echo of the SQL.
 */
const NOISE = /^\s*(Possible (fixes|solutions?)\b|The search space used was|LINE \d+:|\w+ = )/i;

export function shortCause(message: string): string {
  const lines: string[] = [];
  for (const line of message.split('\n')) {
    if (NOISE.test(line)) break;
    const text = line.trim().replace(/\.$/, '');
    if (text) lines.push(text.length > MAX_CAUSE_LINE_LENGTH ? `${text.slice(0, MAX_CAUSE_LINE_LENGTH)}…` : text);
  }
  const cause = lines.join('; ');
  return cause.length > MAX_CAUSE_LENGTH ? `${cause.slice(0, MAX_CAUSE_LENGTH)}…` : cause;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Any other failure of the engine (DuckDB out of memory, I/O…) as a 10-500. */
export function engineFailure(error: unknown, known: readonly PathName[]): AppError {
  return engineError('10-500', undefined, shortCause(redactPaths(messageOf(error), known)), error);
}

/** The code of a DuckDB failure while reading CSV files. */
function csvFailureCode(message: string): ErrorCode {
  if (/Invalid unicode/i.test(message)) return '10-1003';
  if (/^(Invalid Input|Conversion) Error/.test(message)) return '10-1002';
  // Out of memory, I/O, internal errors: the worker failed, not the file.
  return '10-500';
}

/**
 * A DuckDB error raised while reading `files` as CSV, as the AppError the user is shown;
 * `otherPaths` are further local paths the message may name (the output folder).
 */
export function csvReadFailure(error: unknown, files: readonly PathName[], otherPaths: readonly PathName[]): AppError {
  const message = messageOf(error);
  const file = [...files]
    .sort((a, b) => b.path.length - a.path.length)
    .find(({ path }) => message.includes(path))?.name;
  return engineError(csvFailureCode(message), file, shortCause(redactPaths(message, [...files, ...otherPaths])), error);
}
