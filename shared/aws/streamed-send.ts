import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The AWS SDK never retries a request whose body is a stream: it cannot read the stream again
 * ("An error was encountered in a non-retryable streaming request"). A keep-alive connection
 * the server closes just as such a request goes out on it ("socket hang up", ECONNRESET, EPIPE)
 * then failed the whole job with 10-500, where any other request is simply sent again. Uploads
 * of a file (PutObject, UploadPart) are idempotent, so they are sent again here, each time
 * with a new body from `send`, a few times, and only for errors raised before any answer came.
 */

/** Attempts in all; the connection race this answers loses at most once in practice. */
const ATTEMPTS = 3;
const BACKOFF_MS = 50;

/** Node's errors of a connection that broke before an answer: worth a new connection. */
const CONNECTION_ERRORS: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** True for a connection that broke before the service answered (no HTTP status). */
export function isBrokenConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
  if ($metadata?.httpStatusCode !== undefined) return false;
  return (typeof code === 'string' && CONNECTION_ERRORS.has(code)) || error.message === 'socket hang up';
}

/**
 * Sends a request whose body is a stream, opened anew by `send` at each attempt; a broken
 * connection (isBrokenConnection) is tried again, any other failure, or an abort, is thrown.
 */
export async function sendStreamed<T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= ATTEMPTS || signal?.aborted === true || !isBrokenConnection(error)) throw error;
      await sleep(BACKOFF_MS * 2 ** (attempt - 1), undefined, { signal });
    }
  }
}
