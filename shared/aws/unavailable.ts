import { isNetworkCode } from '../errors/network-reason';

/**
 * Names of AWS SDK errors that say a service could not serve the request at all, through no
 * fault of the request: the resource it names is missing (a table deleted or never made),
 * the service failed or is throttling after the SDK's own retries, or it did not answer.
 */
const UNAVAILABLE = new Set([
  'ResourceNotFoundException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'InternalFailure',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TimeoutError',
]);

/** Chains deeper than this are not walked: a cause that names itself must not loop. */
const MAX_CAUSES = 10;

/**
 * Whether `error`, or an error it was caused by, says an AWS service (the table, KMS) was
 * unreachable or unavailable: a network failure (ECONNREFUSED), a 5xx answer, or one of the
 * names above. A refusal of the request itself (a failed condition, an invalid key) is not.
 */
export function isServiceUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < MAX_CAUSES; depth += 1) {
    const failure = current as Error & { readonly code?: unknown; readonly $metadata?: { httpStatusCode?: number } };
    if (UNAVAILABLE.has(failure.name) || isNetworkCode(failure.code)) return true;
    if ((failure.$metadata?.httpStatusCode ?? 0) >= 500) return true;
    current = failure.cause;
  }
  return false;
}
