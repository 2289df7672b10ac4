import type { AppError } from '../errors/app-error';
import { isNetworkCode, networkReason, type NetworkReason } from '../errors/network-reason';
import { OutboundDestinationBlocked, blockedDestination } from './outbound-guard';

/**
 * What a call to an external system that got no answer ran into, before each connector names
 * it with its own codes: a destination the outbound guard refused (30-1130 whoever called), an
 * endpoint that leads nowhere (a name that does not resolve, a port nobody listens on, no
 * route), or a path to a real server that failed on the way (a time-out, a reset).
 */
export type NoAnswer =
  | { readonly kind: 'blocked'; readonly error: AppError }
  | {
      readonly kind: 'unreachable' | 'failing';
      /** What happened on the way; undefined when the error carries no network code and was no time-out. */
      readonly reason: NetworkReason | undefined;
    };

/** Network failure codes that mean the endpoint leads nowhere, as opposed to a flaky path to a real server. */
const UNREACHABLE: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EANSWERTOOLARGE',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** An error and its causes, nearest first (at most eight). */
export function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let current = error;
    current !== undefined && current !== null && chain.length < 8;
    current = (current as { cause?: unknown }).cause
  )
    chain.push(current);
  return chain;
}

/**
 * Sorts a failed call that got no answer. `abortIsTimeout`: the caller's own signal aborts
 * only when its time limit fires (an AbortError is then a time-out, not a cancellation).
 */
export function classifyNoAnswer(error: unknown, options: { readonly abortIsTimeout?: boolean } = {}): NoAnswer {
  const chain = causes(error);
  const blocked = chain.find((candidate) => candidate instanceof OutboundDestinationBlocked);
  if (blocked) return { kind: 'blocked', error: blockedDestination(blocked.host) };
  const code = chain
    .map((candidate) => (candidate as { code?: unknown }).code)
    .find((value): value is string => typeof value === 'string');
  const timedOut = chain.some((candidate) => {
    const name = (candidate as { name?: unknown }).name;
    return name === 'TimeoutError' || (options.abortIsTimeout === true && name === 'AbortError');
  });
  if (timedOut) return { kind: 'failing', reason: 'timeout' };
  const reason = isNetworkCode(code) ? networkReason(code) : undefined;
  return { kind: code !== undefined && UNREACHABLE.has(code) ? 'unreachable' : 'failing', reason };
}
