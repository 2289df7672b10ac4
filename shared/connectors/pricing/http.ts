import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { outboundRequest } from '../outbound-http';
import { causes } from '../no-answer';
import { answerFailure, transportFailure } from './errors';

/**
 * One HTTP call to the pricing system (docs/pricing.md): through the outbound guard, bounded
 * by the connector time-out and the caller's signal, JSON both ways. Failures are thrown as
 * PricingCallFailure (or 30-1130), for the connector to name with its codes.
 */

export interface PricingRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Relative to the host's base, starting with "/". */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** The body as JSON text, encoded once by the caller (a batch's retries send the same bytes). */
  readonly body?: string;
  readonly authorization: string;
}

export interface PricingAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
}

/** The URL of `path` under `base`, whose own path (if any) is kept as a prefix. */
function urlUnder(base: URL, path: string, query: Readonly<Record<string, string>> = {}): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
  url.search = new URLSearchParams(query).toString();
  return url;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one request and answers whatever status came back; a call that got no answer throws. */
export async function pricingExchange(
  base: URL,
  request: PricingRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<PricingAnswer> {
  try {
    const response = await outboundRequest({
      method: request.method,
      url: urlUnder(base, request.path, request.query),
      headers: {
        authorization: request.authorization,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: request.body }),
      timeoutMs,
      signal,
    });
    return { status: response.status, headers: response.headers, json: parseJson(response.text) };
  } catch (error) {
    // The caller's own abort is not the pricing system's failure: it goes up as it is.
    if (signal.aborted) throw signal.reason;
    throw transportFailure(error);
  }
}

/** The answer if it is a 2xx, else its failure. */
export function successful(answer: PricingAnswer): PricingAnswer {
  if (answer.status < 200 || answer.status > 299) throw answerFailure(answer.status, answer.json);
  return answer;
}

/** How often, and how long between, a transient failure of a batch is tried again. */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000] as const;
/** The longest Retry-After honoured: a system that asks for more is down, not busy. */
const MAX_RETRY_AFTER_MS = 10_000;

/** The wait a 429 asks for (Retry-After in seconds or as an HTTP date), bounded. */
function retryAfterMs(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['retry-after'];
  if (typeof value !== 'string') return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

function isConnectionReset(error: unknown): boolean {
  return causes(error).some((candidate) => {
    const code = (candidate as { code?: unknown }).code;
    return (
      code === 'ECONNRESET' || code === 'EPIPE' || (candidate as { reason?: unknown }).reason === 'connection_reset'
    );
  });
}

/**
 * Runs `send` again after a transient failure (a 5xx, a 429, a connection reset), at most
 * RETRY_DELAYS_MS.length more times with backoff; the wait ends early when `signal` aborts.
 * Only for calls whose repeat is harmless (a batch, identified by its sequence).
 */
export async function withRetries(send: () => Promise<PricingAnswer>, signal: AbortSignal): Promise<PricingAnswer> {
  for (let attempt = 0; ; attempt++) {
    const delay = RETRY_DELAYS_MS[attempt];
    let answer: PricingAnswer;
    try {
      answer = await send();
    } catch (error) {
      if (delay === undefined || signal.aborted || !isConnectionReset(error)) throw error;
      await pause(delay, signal);
      continue;
    }
    const transient = answer.status >= 500 || answer.status === 429;
    if (!transient || delay === undefined) return answer;
    await pause(answer.status === 429 ? (retryAfterMs(answer.headers) ?? delay) : delay, signal);
  }
}

/** Waits `ms`, or fails with the signal's own reason (as a call it aborts does) when it aborts first. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}
