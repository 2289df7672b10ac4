import { describe, expect, it } from 'vitest';
import { ApiError } from '@google-cloud/storage';
import { GoogleTokenFailure } from '../../../../shared/connectors/cloud/token';
import { cloudStoreError, type CloudStoreErrorContext } from '../../../../shared/connectors/cloud-store/errors';
import { OutboundDestinationBlocked } from '../../../../shared/connectors/outbound-guard';
import { AppError } from '../../../../shared/errors/app-error';

/** An error as the SDK raises it for a JSON error answer (ApiError with the status as code). */
function answer(code: number, reason: string, message = 'provider text that must not travel'): ApiError {
  return Object.assign(new ApiError(message), { code, errors: [{ reason, message }] });
}

const list: CloudStoreErrorContext = { operation: 'list', bucket: 'acme_raw' };
const buckets: CloudStoreErrorContext = { operation: 'buckets' };
const download: CloudStoreErrorContext = { operation: 'download', bucket: 'acme_raw', path: 'acme_raw/in/a.csv' };

describe('cloudStoreError', () => {
  it.each([
    [answer(404, 'notFound'), list, '30-1302', 'Bucket acme_raw does not exist or is not accessible'],
    [answer(404, 'notFound'), download, '30-1305', 'Path acme_raw/in/a.csv does not exist in the bucket'],
    [answer(404, 'notFound'), buckets, '30-1309', 'Project not found'],
    [answer(400, 'invalid'), buckets, '30-1309', 'Project not found'],
    [answer(403, 'forbidden'), list, '30-1301', 'Access denied; check service account permissions'],
    [answer(401, 'authError'), download, '30-1301', 'Access denied; check service account permissions'],
    [
      answer(403, 'forbidden'),
      buckets,
      '30-1308',
      expect.stringContaining('Access denied when listing buckets at project level'),
    ],
    [answer(429, 'rateLimitExceeded'), list, '30-1307', 'Cloud-storage rate limit exceeded; retry after a short wait'],
    [
      answer(403, 'userRateLimitExceeded'),
      list,
      '30-1307',
      'Cloud-storage rate limit exceeded; retry after a short wait',
    ],
    [answer(408, 'requestTimeout'), list, '30-1303', 'Cloud-storage operation timed out'],
  ])('maps the answer %# to its code', (error, context, code, message) => {
    const mapped = cloudStoreError(error, context);
    expect(mapped).toMatchObject({ code, message });
    expect(JSON.stringify(mapped.extraDetails ?? {})).not.toContain('provider text');
  });

  it('30-1303 for silences: node-fetch timeouts, an idle body, socket timeouts', () => {
    const fetchTimeout = Object.assign(new Error('network timeout at: http://127.0.0.1/x'), {
      name: 'FetchError',
      type: 'request-timeout',
    });
    const idle = Object.assign(new Error('no bytes received for 10 ms'), { name: 'TimeoutError' });
    const socket = Object.assign(new Error('socket timeout'), { code: 'ESOCKETTIMEDOUT' });
    for (const error of [fetchTimeout, idle, socket]) expect(cloudStoreError(error, list).code).toBe('30-1303');
  });

  it('30-1300 naming only the provider’s reason and status, or the network errno', () => {
    expect(cloudStoreError(answer(503, 'backendError'), list).extraDetails).toEqual({
      provider_error: 'backendError',
      provider_status: 503,
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      name: 'FetchError',
      type: 'system',
      code: 'ECONNREFUSED',
    });
    expect(cloudStoreError(refused, list)).toMatchObject({
      code: '30-1300',
      extraDetails: { provider_error: 'connection_refused' },
    });
    expect(cloudStoreError(new TypeError('x is not a function'), list)).toMatchObject({
      code: '30-1300',
      extraDetails: { provider_error: 'Unknown' },
    });
  });

  it('token failures: 30-1323 for any step of a federation, 30-1301 for a refused key, 30-1303 for silence', () => {
    expect(cloudStoreError(new GoogleTokenFailure('sts', 'invalid_grant', 400, false), list)).toMatchObject({
      code: '30-1323',
      extraDetails: { step: 'sts', provider_error: 'invalid_grant', provider_status: 400 },
    });
    expect(
      cloudStoreError(new GoogleTokenFailure('identity_provider', 'connection_refused', undefined, false), list),
    ).toMatchObject({
      code: '30-1323',
      extraDetails: { step: 'identity_provider', provider_error: 'connection_refused' },
    });
    expect(cloudStoreError(new GoogleTokenFailure('service_account', 'invalid_grant', 400, false), list).code).toBe(
      '30-1301',
    );
    expect(cloudStoreError(new GoogleTokenFailure('service_account', 'internal_failure', 500, false), list).code).toBe(
      '30-1300',
    );
    expect(cloudStoreError(new GoogleTokenFailure('impersonation', 'timeout', undefined, true), list)).toMatchObject({
      code: '30-1303',
      extraDetails: { step: 'impersonation' },
    });
  });

  it('keeps catalogue errors, and names a blocked destination 30-1130', () => {
    const own = new AppError('30-1305', { params: ['acme_raw/x/'] });
    expect(cloudStoreError(own, list)).toBe(own);
    const blocked = new OutboundDestinationBlocked('metadata.internal');
    expect(cloudStoreError(Object.assign(new Error('request failed'), { cause: blocked }), list)).toMatchObject({
      code: '30-1130',
      extraDetails: { host: 'metadata.internal' },
    });
  });
});
