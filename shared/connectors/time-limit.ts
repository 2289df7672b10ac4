import { AppError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';

/**
 * What a request answers when its time limit runs out while it waits on the external system
 * of a connection (a test, a browse, a table listing, a query check): the system the caller
 * named was too slow, so each type's own time-out code, as its connector answers when one of
 * its calls times out, rather than 10-500. Undefined for a type without one.
 */
export function externalTimeLimitError(type: ConnectionType): AppError | undefined {
  const cause = { cause: 'the external system did not answer within the request’s time limit' };
  switch (type) {
    case 'object_store':
      return new AppError('30-1110', { extraDetails: cause });
    case 'cloud_store':
      return new AppError('30-1303', { extraDetails: cause });
    case 'warehouse':
      return new AppError('30-1005', { extraDetails: cause });
    case 'analytics_db':
      // The analytics database's connector reports its own time-outs so (analytics-db/errors.ts).
      return new AppError('30-1413', { extraDetails: { ...cause, provider_error: 'timeout' } });
    case 'pricing_dim':
      // Its connector names a time-out a failure of the DIM (pricing/errors.ts).
      return new AppError('30-4007', { extraDetails: { ...cause, provider_error: 'timeout' } });
    case 'pricing_sdk':
      return new AppError('30-4100', {
        params: ['(no answer in time)'],
        extraDetails: { ...cause, provider_error: 'timeout' },
      });
    default:
      return undefined;
  }
}
