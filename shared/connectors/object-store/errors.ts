import { AppError } from '../../errors/app-error';
import { isNetworkCode, networkReason } from '../../errors/network-reason';
import { OutboundDestinationBlocked, blockedDestination } from '../outbound-guard';

interface ServiceFailure {
  readonly name?: string;
  readonly code?: string;
  readonly Code?: string;
  readonly $fault?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * What the provider called the failure, as the caller may see it: the error code of the
 * store's answer (the SDK names its service exceptions after it), or the reason of a network
 * failure (network-reason.ts: connection_refused, not ECONNREFUSED). Never the name of a
 * JavaScript exception (TypeError, RangeError) or an SDK class: those describe our code, not
 * the store.
 */
function providerError(failure: ServiceFailure): string {
  if (typeof failure.Code === 'string') return failure.Code;
  const answered = failure.$fault !== undefined || failure.$metadata !== undefined;
  if (answered && typeof failure.name === 'string') return failure.name;
  if (isNetworkCode(failure.code)) return networkReason(failure.code);
  return 'Unknown';
}

/**
 * The catalogue code of a failed call to an S3-compatible store (30-11xx). Only the
 * provider's error code and status travel to the caller, never its message, which can echo
 * request details, nor the name of an exception raised on our side.
 */
export function objectStoreError(error: unknown, bucket: string | undefined): AppError {
  if (error instanceof AppError) return error;
  const blocked = [error, (error as { cause?: unknown } | undefined)?.cause].find(
    (candidate) => candidate instanceof OutboundDestinationBlocked,
  );
  if (blocked) return blockedDestination(blocked.host);
  const failure = (error ?? {}) as ServiceFailure;
  const code = failure.Code ?? failure.name ?? failure.code ?? 'Unknown';
  const status = failure.$metadata?.httpStatusCode;
  const bucketName = bucket ?? '';
  switch (code) {
    case 'NoSuchBucket':
      return new AppError('30-1108', { params: [bucketName], cause: error });
    case 'InvalidBucketName':
      return new AppError('30-1115', { params: [bucketName], cause: error });
    case 'InvalidAccessKeyId':
      return new AppError('30-1116', { cause: error });
    case 'SignatureDoesNotMatch':
      return new AppError('30-1117', { cause: error });
    case 'AuthorizationHeaderMalformed':
    case 'IllegalLocationConstraintException':
    case 'InvalidRegion':
      return new AppError('30-1111', { cause: error });
    case 'PermanentRedirect':
    case 'TemporaryRedirect':
      return new AppError('30-1112', { params: [bucketName], cause: error });
    case 'TimeoutError':
    case 'AbortError':
    case 'RequestTimeout':
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return new AppError('30-1110', { cause: error });
    default:
      if (status === 301) return new AppError('30-1112', { params: [bucketName], cause: error });
      return new AppError('30-1100', {
        cause: error,
        extraDetails: {
          provider_error: providerError(failure),
          ...(status === undefined ? {} : { provider_status: status }),
        },
      });
  }
}
