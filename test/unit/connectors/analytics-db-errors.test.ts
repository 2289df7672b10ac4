import { describe, expect, it } from 'vitest';
import { analyticsDbError } from '../../../shared/connectors/analytics-db/errors';
import { GoogleTokenFailure } from '../../../shared/connectors/cloud/token';

/** An error as the SDK raises it for a BigQuery JSON error answer. */
const apiError = (code: number, reason: string) => Object.assign(new Error('message that must not travel'), { code, errors: [{ reason, message: 'x' }] });

describe('analytics_db error mapping', () => {
  it('maps BigQuery answers to 30-141x, keeping only the reason and status', () => {
    expect(analyticsDbError(apiError(404, 'notFound'), 'sales')).toMatchObject({ code: '30-1414', message: expect.stringContaining('sales does not exist') });
    expect(analyticsDbError(apiError(401, 'unauthorized'), 'sales')).toMatchObject({ code: '30-1416', extraDetails: { provider_error: 'unauthorized', provider_status: 401 } });
    expect(analyticsDbError(apiError(403, 'accessDenied'), 'sales')).toMatchObject({ code: '30-1417', extraDetails: { provider_error: 'accessDenied', provider_status: 403 } });
    const other = analyticsDbError(apiError(500, 'internalError'), 'sales');
    expect(other).toMatchObject({ code: '30-1413', extraDetails: { provider_error: 'internalError', provider_status: 500 } });
    expect(JSON.stringify(other.extraDetails)).not.toContain('must not travel');
  });

  it('maps token failures: a refusal is 30-1416, a server fault or silence 30-1413', () => {
    expect(analyticsDbError(new GoogleTokenFailure('service_account', 'invalid_grant', 400, false), 'd')).toMatchObject({ code: '30-1416' });
    expect(analyticsDbError(new GoogleTokenFailure('sts', 'backendError', 503, false), 'd')).toMatchObject({ code: '30-1413' });
    expect(analyticsDbError(new GoogleTokenFailure('service_account', 'timeout', undefined, true), 'd')).toMatchObject({ code: '30-1413' });
  });

  it('a network errno or a timeout is 30-1413', () => {
    expect(analyticsDbError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'd')).toMatchObject({ code: '30-1413', extraDetails: { provider_error: 'ECONNREFUSED' } });
    expect(analyticsDbError(new DOMException('late', 'TimeoutError'), 'd')).toMatchObject({ code: '30-1413', extraDetails: { provider_error: 'timeout' } });
  });
});
