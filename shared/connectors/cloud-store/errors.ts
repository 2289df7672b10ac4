import { AppError } from '../../errors/app-error';
import { GoogleTokenFailure } from '../cloud/token';
import { isNetworkCode, networkReason } from '../../errors/network-reason';
import { OutboundDestinationBlocked, blockedDestination } from '../outbound-guard';

/**
 * What a call to Cloud Storage was doing when it failed: the same HTTP status means different
 * things for a project's bucket listing, a bucket's object listing and an object.
 */
export type CloudStoreOperation = 'buckets' | 'list' | 'download' | 'upload';

export interface CloudStoreErrorContext {
  readonly operation: CloudStoreOperation;
  readonly bucket?: string;
  /** The path the caller named, for 30-1305. */
  readonly path?: string;
}

interface StoreFailure {
  readonly name?: unknown;
  /** HTTP status on the SDK's ApiError, an errno code on network errors. */
  readonly code?: unknown;
  readonly status?: unknown;
  /** node-fetch's kind of failure: "request-timeout", "system", ... */
  readonly type?: unknown;
  readonly errors?: ReadonlyArray<{ readonly reason?: unknown }>;
  readonly response?: { readonly status?: unknown };
}

const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);
const PROVIDER_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

function statusOf(failure: StoreFailure): number | undefined {
  for (const candidate of [failure.code, failure.status, failure.response?.status]) {
    if (typeof candidate === 'number' && candidate >= 100 && candidate <= 599) return candidate;
  }
  return undefined;
}

function reasonOf(failure: StoreFailure): string | undefined {
  const reason = failure.errors?.[0]?.reason;
  return typeof reason === 'string' && PROVIDER_CODE.test(reason) ? reason : undefined;
}

function isTimeout(failure: StoreFailure, status: number | undefined): boolean {
  return (
    status === 408 ||
    failure.name === 'TimeoutError' ||
    failure.type === 'request-timeout' ||
    (typeof failure.code === 'string' && TIMEOUT_CODES.has(failure.code))
  );
}

/**
 * What the store called the failure: the reason of its JSON error, or a network failure's reason (network-reason.ts). Never
 * its message (it can echo request details) nor the name of an exception raised on our side.
 */
function providerError(failure: StoreFailure, status: number | undefined): string {
  const reason = reasonOf(failure);
  if (reason) return reason;
  if (status === undefined && isNetworkCode(failure.code)) return networkReason(failure.code);
  return 'Unknown';
}

function otherFailure(error: unknown, provider: string, status: number | undefined): AppError {
  return new AppError('30-1300', {
    cause: error,
    extraDetails: { provider_error: provider, ...(status === undefined ? {} : { provider_status: status }) },
  });
}

function tokenError(failure: GoogleTokenFailure): AppError {
  if (failure.timedOut) return new AppError('30-1303', { cause: failure, extraDetails: { step: failure.step } });
  const details = {
    step: failure.step,
    provider_error: failure.providerError,
    ...(failure.providerStatus === undefined ? {} : { provider_status: failure.providerStatus }),
  };
  // Any failed step of a federation is the exchange failing; a key the token endpoint refuses is denied access.
  if (failure.step !== 'service_account') return new AppError('30-1323', { cause: failure, extraDetails: details });
  const refused = failure.providerStatus !== undefined && failure.providerStatus >= 400 && failure.providerStatus < 500;
  return refused
    ? new AppError('30-1301', { cause: failure, extraDetails: details })
    : new AppError('30-1300', { cause: failure, extraDetails: details });
}

/**
 * The catalogue code of a failed Cloud Storage call (30-13xx). Only the provider's reason
 * and status travel to the caller.
 */
export function cloudStoreError(error: unknown, context: CloudStoreErrorContext): AppError {
  if (error instanceof AppError) return error;
  const blocked = [error, (error as { cause?: unknown } | undefined)?.cause].find(
    (candidate) => candidate instanceof OutboundDestinationBlocked,
  );
  if (blocked) return blockedDestination(blocked.host);
  if (error instanceof GoogleTokenFailure) return tokenError(error);
  const failure = (error ?? {}) as StoreFailure;
  const status = statusOf(failure);
  const reason = reasonOf(failure);
  if (isTimeout(failure, status)) return new AppError('30-1303', { cause: error });
  if (status === 429 || (reason !== undefined && RATE_LIMIT_REASONS.has(reason)))
    return new AppError('30-1307', { cause: error });
  const bucket = context.bucket ?? '';
  switch (status) {
    case 400:
      // buckets.list answers "Unknown project id: …" (reason invalid) for a project it does not know.
      if (context.operation === 'buckets' && reason === 'invalid') return new AppError('30-1309', { cause: error });
      return otherFailure(error, providerError(failure, status), status);
    case 401:
    case 403:
      return new AppError(context.operation === 'buckets' ? '30-1308' : '30-1301', {
        cause: error,
        extraDetails: { provider_error: reason ?? 'Unknown', provider_status: status },
      });
    case 404:
      if (context.operation === 'buckets') return new AppError('30-1309', { cause: error });
      // An object that vanished between the listing and its download.
      if (context.operation === 'download')
        return new AppError('30-1305', { params: [context.path ?? bucket], cause: error });
      return new AppError('30-1302', { params: [bucket], cause: error });
    default:
      return otherFailure(error, providerError(failure, status), status);
  }
}
