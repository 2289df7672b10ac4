import { describe, expect, it } from 'vitest';
import { WarehouseTimeout, warehouseError } from '../../../../shared/connectors/warehouse/errors';
import { OutboundDestinationBlocked } from '../../../../shared/connectors/outbound-guard';
import { AppError } from '../../../../shared/errors/app-error';

/**
 * The mapping of snowflake-sdk's failures, shaped as the driver hands them out (Errors.externalize
 * copies name, code, message, sqlState, data, response and cause onto a plain Error), including
 * codes only a real account produces.
 */
function driverError(
  name: string,
  fields: { code?: string | number; message?: string; cause?: unknown; response?: { statusCode: number } },
): Error {
  return Object.assign(new Error(fields.message ?? name), { name, ...fields });
}

const snowflake = (code: string, message = 'refused') => driverError('OperationFailedError', { code, message });
const network = (code: string) =>
  driverError('NetworkError', {
    code: 401001,
    cause: Object.assign(new Error(`connect ${code}`), { name: 'AxiosError', code }),
  });

describe('login failures', () => {
  it.each([
    ['390100', '30-1001'],
    ['390101', '30-1001'],
    ['390102', '30-1001'],
    ['390144', '30-1001'],
    ['390303', '30-1001'],
    ['390318', '30-1001'],
    ['390422', '30-1015'],
    ['390201', '30-1014'],
    ['390189', '30-1014'],
  ])('Snowflake %s → %s', (code, expected) => {
    const error = warehouseError(snowflake(code), 'login');
    expect(error.code).toBe(expected);
    expect(error.extraDetails).toEqual({ provider_error: code });
  });

  it('maps an answer that is not Snowflake’s JSON to 30-1014 with its status', () => {
    expect(
      warehouseError(driverError('RequestFailedError', { code: 401002, response: { statusCode: 404 } }), 'login'),
    ).toMatchObject({
      code: '30-1014',
      extraDetails: { provider_status: 404 },
    });
    expect(warehouseError(driverError('UnexpectedContentError', { code: 401003 }), 'login')).toMatchObject({
      code: '30-1014',
      extraDetails: {},
    });
  });
});

describe('statement failures', () => {
  it.each([
    ['000606', '30-1013'],
    ['001003', '30-1008'],
    ['001007', '30-1008'],
    ['000630', '30-1005'],
    ['000625', '30-1005'],
    ['000603', '30-1003'],
    ['000604', '30-1003'],
    ['100038', '30-1003'],
  ])('Snowflake %s → %s', (code, expected) => {
    expect(warehouseError(snowflake(code), 'query').code).toBe(expected);
  });

  it.each([
    ['002003', "SQL compilation error:\nObject 'DB.S.T' does not exist or not authorized.", 'DB.S.T'],
    ['002003', "SQL compilation error:\nSchema 'DB.RAW' does not exist or not authorized.", 'DB.RAW'],
    ['002003', "SQL compilation error:\nDatabase 'ARCHIVE' does not exist or not authorized.", 'ARCHIVE'],
    ['000904', "SQL compilation error: error line 1 at position 7\ninvalid identifier 'DISCOUNT'", 'DISCOUNT'],
    ['002043', 'SQL compilation error:\nObject does not exist, or operation cannot be performed.', 'in the query'],
    [
      '090105',
      "Cannot perform SELECT. This session does not have a current database. Call 'USE DATABASE', or use a qualified name.",
      'in the query',
    ],
  ])('Snowflake %s names the element in 30-1010', (code, message, element) => {
    const error = warehouseError(snowflake(code, message), 'query');
    expect(error.code).toBe('30-1010');
    expect(error.message).toBe(`Element ${element} not found or not accessible`);
    expect(error.extraDetails).toEqual({ provider_error: code });
  });

  it('maps an HTTP failure of a statement to 30-1003, never 30-1014', () => {
    expect(
      warehouseError(driverError('RequestFailedError', { code: 401002, response: { statusCode: 503 } }), 'query'),
    ).toMatchObject({
      code: '30-1003',
      extraDetails: { provider_status: 503 },
    });
  });
});

describe('transport failures', () => {
  it.each([
    ['ECONNREFUSED', '30-1002', 'connection_refused'],
    ['ENOTFOUND', '30-1002', 'host_not_found'],
    ['ECONNRESET', '30-1002', 'connection_reset'],
    ['ECONNABORTED', '30-1005', 'connection_reset'],
    ['ETIMEDOUT', '30-1005', 'timeout'],
  ])('a socket failing with %s → %s, provider_error %s (not the errno)', (code, expected, reason) => {
    expect(warehouseError(network(code), 'login')).toMatchObject({
      code: expected,
      extraDetails: { provider_error: reason },
    });
  });

  it('maps a chunk download failure like the account’s own', () => {
    const chunk = driverError('NetworkError', {
      code: 402001,
      cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    });
    expect(warehouseError(chunk, 'query')).toMatchObject({
      code: '30-1002',
      extraDetails: { provider_error: 'connection_reset' },
    });
    const refused = driverError('LargeResultSetError', { code: 402002, response: { statusCode: 403 } });
    expect(warehouseError(refused, 'query')).toMatchObject({
      code: '30-1002',
      extraDetails: { provider_error: 'Unknown', provider_status: 403 },
    });
  });

  it('finds a destination the outbound guard refused anywhere in the causes', () => {
    const blocked = network('ERR_CANCELED');
    Object.assign((blocked as { cause: Error }).cause, { cause: new OutboundDestinationBlocked('metadata.internal') });
    expect(warehouseError(blocked, 'query')).toMatchObject({
      code: '30-1130',
      extraDetails: { host: 'metadata.internal' },
    });
  });

  it('maps our own bound running out to 30-1005, and passes AppErrors through', () => {
    expect(warehouseError(new WarehouseTimeout(), 'query').code).toBe('30-1005');
    const own = new AppError('30-1201');
    expect(warehouseError(own, 'login')).toBe(own);
  });

  it('names no JavaScript exception class for a failure it does not know', () => {
    expect(warehouseError(new TypeError('x is not a function'), 'query')).toMatchObject({
      code: '30-1003',
      extraDetails: { provider_error: 'Unknown' },
    });
  });
});
