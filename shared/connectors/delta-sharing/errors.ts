import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../errors/app-error';
import { classifyNoAnswer } from '../no-answer';

/**
 * What a sharing server's answers and silences mean (30-30xx). A 401 is an expired
 * credential (30-3013) when the server says so (RFC 6750's invalid_token with "expired") or
 * the profile's expirationTime has passed, otherwise a refused one (30-3005); a 404 of the
 * share listing means the endpoint is not a sharing server (30-3006), elsewhere that the
 * share, schema or table does not exist (30-3012), as does the 400 INVALID_PARAMETER_VALUE
 * of a query pinned to a version or timestamp the table does not have. Only the server's errorCode reaches the
 * caller, never its message, which may echo what was sent.
 */

export interface FailedCall {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** What the call read, for 30-3012: "share partner", "table partner.retail.orders". */
  readonly subject: string;
  /** A query pinned to a version or timestamp (its subject names the pin). */
  readonly pinned: boolean;
  /** The share listing, whose 404 says the endpoint is wrong rather than a share missing. */
  readonly isRoot: boolean;
  readonly endpoint: string;
  /** The profile's expirationTime, when it has one. */
  readonly expirationTime: string | undefined;
}

function serverErrorCode(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { errorCode?: unknown }).errorCode;
    return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The code of a sharing server's non-2xx answer. */
export function deltaSharingHttpError(call: FailedCall): AppError {
  const errorCode = serverErrorCode(call.text);
  const extraDetails = { provider_status: call.status, ...(errorCode ? { provider_error: errorCode } : {}) };
  if (call.status === 401) {
    const challenge = String(call.headers['www-authenticate'] ?? '');
    const expired =
      /invalid_token/i.test(challenge) && /expired/i.test(challenge)
        ? true
        : call.expirationTime !== undefined && Date.parse(call.expirationTime) <= Date.now();
    return new AppError(expired ? '30-3013' : '30-3005', { extraDetails });
  }
  if (call.status === 403) return new AppError('30-3005', { extraDetails });
  // The reference server answers a version or timestamp the table does not have with 400
  // INVALID_PARAMETER_VALUE ("Cannot time travel Delta table to version 9..."): the version is not found.
  if (call.status === 400 && call.pinned && errorCode === 'INVALID_PARAMETER_VALUE')
    return new AppError('30-3012', { params: [call.subject], extraDetails });
  if (call.status === 404)
    return call.isRoot
      ? new AppError('30-3006', { params: [call.endpoint], extraDetails })
      : new AppError('30-3012', { params: [call.subject], extraDetails });
  return new AppError('30-3007', {
    params: [`the sharing server answered HTTP ${call.status}${errorCode ? ` ${errorCode}` : ''}`],
    extraDetails,
  });
}

/**
 * The code of a call that got no answer: a refused destination is 30-1130, a name that does
 * not resolve or a port nobody listens on 30-3006, a timeout or reset 30-3007.
 */
export function deltaSharingTransportError(error: unknown, endpoint: string): AppError {
  if (error instanceof AppError) return error;
  const sorted = classifyNoAnswer(error);
  if (sorted.kind === 'blocked') return sorted.error;
  const reason = sorted.reason ?? 'network_error';
  if (sorted.kind === 'unreachable')
    return new AppError('30-3006', { cause: error, params: [endpoint], extraDetails: { provider_error: reason } });
  return new AppError('30-3007', { cause: error, params: [reason], extraDetails: { provider_error: reason } });
}

/** An answer that is not the protocol's (a 200 whose body does not parse): 30-3010. */
export function unparsedAnswer(reason: string): AppError {
  return new AppError('30-3010', { extraDetails: { reason } });
}
