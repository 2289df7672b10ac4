/**
 * The client's fetch: the access token on every request, and retries with exponential backoff
 * (full jitter) on 429, 502, 503, 504 and on connections reset or refused, waiting at least as
 * long as a Retry-After asks. A POST is retried only when it carries an Idempotency-Key (the
 * client gives every create one, so a retried create returns the first result) or when the
 * service said 429 before doing anything; reads, PUTs and DELETEs always.
 */
import type { TokenSource } from './auth.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  readonly attempts: number;
  /** The first backoff's ceiling in ms (default 250); doubled each retry. */
  readonly baseDelayMs: number;
  /** The longest backoff in ms (default 8000). */
  readonly maxDelayMs: number;
  /** A Retry-After longer than this (ms, default 60000) is not waited for: the answer is returned. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 4, baseDelayMs: 250, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/** Network failures where the request may be sent again: the connection went away or was never made. */
const RETRIED_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** The wait a Retry-After header asks for in ms (seconds or an HTTP date), if any. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function networkCode(error: unknown): string | undefined {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = cause.cause;
  }
  return undefined;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (the client runs where node:timers may not). */
export function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface TransportOptions {
  readonly retry: RetryOptions;
  readonly tokens?: TokenSource;
  /** A fixed bearer token, when no client credentials are given. */
  readonly token?: string;
  readonly fetch: (request: Request) => Promise<Response>;
}

/** A fetch that authenticates and retries as described above. */
export function transport(options: TransportOptions): (request: Request) => Promise<Response> {
  const { retry, tokens } = options;
  return async (request) => {
    const canRetryAlways = IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      const headers = new Headers(request.headers);
      const token = tokens ? await tokens.token() : options.token;
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      let response: Response;
      try {
        response = await options.fetch(new Request(request.clone(), { headers }));
      } catch (error) {
        const code = networkCode(error);
        if (!canRetryAlways || attempt >= retry.attempts || code === undefined || !RETRIED_ERRORS.has(code))
          throw error;
        await sleep(backoff(retry, attempt), request.signal);
        continue;
      }
      if (response.status === 401 && tokens !== undefined && !refreshed) {
        // A token revoked or expired early: one fresh exchange, then the answer stands.
        refreshed = true;
        tokens.invalidate();
        attempt -= 1;
        continue;
      }
      const retryable = RETRIED_STATUSES.has(response.status) && (canRetryAlways || response.status === 429);
      if (!retryable || attempt >= retry.attempts) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > retry.maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(Math.max(asked ?? 0, backoff(retry, attempt)), request.signal);
    }
  };
}

function backoff(retry: RetryOptions, attempt: number): number {
  return Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
}
