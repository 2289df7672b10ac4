import { describe, expect, it } from 'vitest';
import {
  analyticsDbError,
  analyticsDbImportError,
  analyticsDbTablesError,
} from '../../../shared/connectors/analytics-db/errors';
import { QueryJobFailure } from '../../../shared/connectors/analytics-db/view-query';
import { GoogleTokenFailure } from '../../../shared/connectors/cloud/token';

/** An error as the SDK raises it for a BigQuery JSON error answer. */
const apiError = (code: number, reason: string, message = 'message that must not travel') =>
  Object.assign(new Error(message), { code, errors: [{ reason, message: 'x' }] });

describe('analytics_db error mapping', () => {
  it('maps BigQuery answers to 30-141x, keeping only the reason and status', () => {
    expect(analyticsDbError(apiError(404, 'notFound'), 'sales')).toMatchObject({
      code: '30-1414',
      message: expect.stringContaining('sales does not exist'),
    });
    expect(analyticsDbError(apiError(401, 'unauthorized'), 'sales')).toMatchObject({
      code: '30-1416',
      extraDetails: { provider_error: 'unauthorized', provider_status: 401 },
    });
    expect(analyticsDbError(apiError(403, 'accessDenied'), 'sales')).toMatchObject({
      code: '30-1417',
      extraDetails: { provider_error: 'accessDenied', provider_status: 403 },
    });
    const other = analyticsDbError(apiError(500, 'internalError'), 'sales');
    expect(other).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'internalError', provider_status: 500 },
    });
    expect(JSON.stringify(other.extraDetails)).not.toContain('must not travel');
  });

  it('maps token failures: a refusal is 30-1416, a server fault or silence 30-1413', () => {
    expect(analyticsDbError(new GoogleTokenFailure('service_account', 'invalid_grant', 400, false), 'd')).toMatchObject(
      { code: '30-1416' },
    );
    expect(analyticsDbError(new GoogleTokenFailure('sts', 'backendError', 503, false), 'd')).toMatchObject({
      code: '30-1413',
    });
    expect(analyticsDbError(new GoogleTokenFailure('service_account', 'timeout', undefined, true), 'd')).toMatchObject({
      code: '30-1413',
    });
  });

  it('a network errno or a timeout is 30-1413', () => {
    expect(analyticsDbError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'd')).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'connection_refused' },
    });
    expect(analyticsDbError(new DOMException('late', 'TimeoutError'), 'd')).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'timeout' },
    });
  });
});

describe('analytics_db import error mapping', () => {
  const table = { project: 'acme', dataset: 'sales', table: 'orders' };

  it('tells a missing dataset (30-1414) from a missing table (30-1425) by BigQuery’s message, and a refusal is 30-1423', () => {
    expect(
      analyticsDbImportError(apiError(404, 'notFound', 'Not found: Dataset acme:sales'), table, 'table'),
    ).toMatchObject({
      code: '30-1414',
      message: expect.stringContaining('sales'),
    });
    expect(
      analyticsDbImportError(apiError(404, 'notFound', 'Not found: Table acme:sales.orders'), table, 'table'),
    ).toMatchObject({
      code: '30-1425',
      message: 'Table acme.sales.orders not found in the connection',
    });
    expect(analyticsDbImportError(apiError(403, 'accessDenied'), table, 'table')).toMatchObject({
      code: '30-1423',
      extraDetails: { provider_error: 'accessDenied', provider_status: 403 },
    });
  });

  it('a page that went away is 30-1418, a refused page 30-1423', () => {
    expect(
      analyticsDbImportError(apiError(404, 'notFound', 'Not found: Table acme:sales.orders'), table, 'rows'),
    ).toMatchObject({ code: '30-1418' });
    expect(analyticsDbImportError(apiError(403, 'accessDenied'), table, 'rows')).toMatchObject({ code: '30-1423' });
  });

  it('a view’s query: invalid SQL or a table it reads gone is 30-1424, no right to run it 30-1426, as an HTTP answer or a job’s errorResult', () => {
    expect(analyticsDbImportError(apiError(400, 'invalidQuery'), table, 'query')).toMatchObject({ code: '30-1424' });
    expect(
      analyticsDbImportError(new QueryJobFailure({ reason: 'invalidQuery', message: 'Syntax error' }), table, 'query'),
    ).toMatchObject({
      code: '30-1424',
      extraDetails: { provider_error: 'invalidQuery' },
    });
    expect(
      analyticsDbImportError(
        new QueryJobFailure({ reason: 'notFound', message: 'Not found: Table acme:sales.gone' }),
        table,
        'query',
      ),
    ).toMatchObject({ code: '30-1424' });
    expect(analyticsDbImportError(apiError(403, 'accessDenied'), table, 'query')).toMatchObject({ code: '30-1426' });
    expect(analyticsDbImportError(new QueryJobFailure({ reason: 'accessDenied' }), table, 'query')).toMatchObject({
      code: '30-1426',
    });
    expect(analyticsDbImportError(apiError(403, 'insufficientPermissions'), table, 'query')).toMatchObject({
      code: '30-1426',
    });
    expect(analyticsDbImportError(new QueryJobFailure({ reason: 'resourcesExceeded' }), table, 'query')).toMatchObject({
      code: '30-1413',
    });
  });

  it('throttling in any phase is 30-1413 (retried by the job); a refused credential 30-1416; silence 30-1413', () => {
    for (const phase of ['table', 'rows', 'query'] as const) {
      expect(analyticsDbImportError(apiError(403, 'rateLimitExceeded'), table, phase)).toMatchObject({
        code: '30-1413',
        extraDetails: { provider_error: 'rateLimitExceeded' },
      });
      expect(analyticsDbImportError(apiError(503, 'backendError'), table, phase)).toMatchObject({ code: '30-1413' });
      expect(analyticsDbImportError(apiError(401, 'unauthorized'), table, phase)).toMatchObject({ code: '30-1416' });
      expect(analyticsDbImportError(new DOMException('late', 'TimeoutError'), table, phase)).toMatchObject({
        code: '30-1413',
        extraDetails: { provider_error: 'timeout' },
      });
    }
  });
});

describe('analytics_db table listing and details error mapping', () => {
  it('a missing table is 30-1425 only when a table was asked for and the dataset exists', () => {
    const missingTable = apiError(404, 'notFound', 'Not found: Table acme:sales.orders');
    expect(analyticsDbTablesError(missingTable, 'sales', 'acme.sales.orders')).toMatchObject({
      code: '30-1425',
      message: 'Table acme.sales.orders not found in the connection',
    });
    expect(
      analyticsDbTablesError(apiError(404, 'notFound', 'Not found: Dataset acme:sales'), 'sales', 'acme.sales.orders'),
    ).toMatchObject({ code: '30-1414' });
    expect(analyticsDbTablesError(apiError(404, 'notFound', 'Not found: Dataset acme:sales'), 'sales')).toMatchObject({
      code: '30-1414',
    });
  });

  it('throttling is 30-1413 even as a 403; a denial 30-1417, a refused credential 30-1416, silence 30-1413', () => {
    expect(analyticsDbTablesError(apiError(403, 'rateLimitExceeded'), 'sales')).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'rateLimitExceeded' },
    });
    expect(analyticsDbTablesError(apiError(403, 'accessDenied'), 'sales', 'acme.sales.orders')).toMatchObject({
      code: '30-1417',
    });
    expect(analyticsDbTablesError(apiError(401, 'unauthorized'), 'sales')).toMatchObject({ code: '30-1416' });
    expect(analyticsDbTablesError(new DOMException('late', 'TimeoutError'), 'sales')).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'timeout' },
    });
  });
});
