import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionConfiguration } from '../../../../shared/connectors/configuration';
import type { PricingColumn, PricingConnector } from '../../../../shared/connectors/pricing/connector';
import { pricingConnectorOf } from '../../../../shared/connectors/pricing/factory';
import { AppError } from '../../../../shared/errors/app-error';
import { rsaKeyPair, startPricingSdk, type PricingSdkFake } from '../../../fakes/pricing-sdk';

/** The SDK connector against the SDK fake, whose token server verifies the JWT for real. */
let sdk: PricingSdkFake;
const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;
const signal = () => AbortSignal.timeout(20_000);
const COLUMNS: PricingColumn[] = [
  { name: 'sku', type: 'STRING' },
  { name: 'on', type: 'DATE' },
];

/** A distinct client per test (its own cached session), unless a test shares one on purpose. */
let clientNumber = 0;
function configuration(overrides: Record<string, string> = {}, serviceKey?: string): ConnectionConfiguration {
  return {
    type: 'pricing_sdk',
    auth: {
      auth_type: 'private_key_jwt',
      token_url: sdk.tokenUrl,
      client_id: sdk.clientId,
      kid: sdk.kid,
      scope: `run-${clientNumber}`,
      host: sdk.host,
      ...overrides,
    },
    secret: undefined,
    settings: { service_key: serviceKey ?? sdk.serviceKey },
  };
}

const connector = (options: { key?: string; serviceKey?: string; overrides?: Record<string, string> } = {}) =>
  pricingConnectorOf(configuration(options.overrides, options.serviceKey), options.key ?? sdk.privateKeyPem);

async function failureOf(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1/32';
  sdk = await startPricingSdk({ sessionLifetimeSeconds: 60 });
});

afterEach(async () => {
  clientNumber++;
  await sdk.fail(undefined);
});

afterAll(async () => {
  await sdk.stop();
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

describe('pricing SDK connector', () => {
  it('tests with a verified JWT, a login and GET /ping with the session', async () => {
    const before = sdk.logins.length;
    await connector().test(signal());
    expect(sdk.assertions.at(-1)).toEqual({ accepted: true, reason: 'ok' });
    expect(sdk.logins.length).toBe(before + 1);
    expect(sdk.received.authorizations.at(-1)).toBe(`Session ${sdk.logins.at(-1)?.sessionToken}`);
  });

  it('reuses a session within its lifetime, across connectors of the same connection', async () => {
    const before = sdk.logins.length;
    await connector().test(signal());
    await connector().test(signal());
    expect(sdk.logins.length).toBe(before + 1);
  });

  it('renews an expired session once and repeats the call', async () => {
    const pricing: PricingConnector = connector();
    await pricing.test(signal());
    const before = sdk.logins.length;
    await sdk.fail({ kind: 'expire-sessions' });
    await sdk.fail(undefined);
    const calls = sdk.received.calls.length;
    const refusals = sdk.sessionRefusals.length;
    await pricing.test(signal());
    expect(sdk.sessionRefusals.slice(refusals)).toEqual(['GET /ping Session error="session_expired"']);
    expect(sdk.logins.length).toBe(before + 1);
    expect(sdk.received.calls.slice(calls)).toEqual(['GET /ping']);
    expect(sdk.received.authorizations.at(-1)).toBe(`Session ${sdk.logins.at(-1)?.sessionToken}`);
  });

  it('renews only once: a session refused again is 30-4005', async () => {
    const pricing: PricingConnector = connector();
    await pricing.test(signal());
    // Sessions that end at once: the renewed one is expired too by the time it is used.
    await sdk.fail({ kind: 'expire-sessions' });
    const refusals = sdk.sessionRefusals.length;
    const logins = sdk.logins.length;
    const error = await failureOf(
      pricing.sendBatch(
        { uploadId: 'u-none', acceptedRows: 0, nextSequence: 0 },
        { sequence: 0, firstRow: 0, rows: [] },
        signal(),
      ),
    );
    expect(error.code).toBe('30-4005');
    expect(sdk.logins.length).toBe(logins + 1);
    expect(sdk.sessionRefusals.length).toBe(refusals + 2);
  });

  it('uploads exactly the rows sent, resumed without duplicates', async () => {
    const destination = { projectPath: '\\Sdk', tablePath: 'Days\\' };
    const upload = await connector().openUpload('sdk-transfer', destination, COLUMNS, signal());
    await connector().sendBatch(upload, { sequence: 0, firstRow: 0, rows: [['a', '2024-01-02']] }, signal());
    const resumed = await connector().openUpload('sdk-transfer', destination, COLUMNS, signal());
    expect(resumed).toMatchObject({ uploadId: upload.uploadId, acceptedRows: 1, nextSequence: 1 });
    await connector().sendBatch(resumed, { sequence: 0, firstRow: 0, rows: [['a', '2024-01-02']] }, signal());
    await connector().sendBatch(resumed, { sequence: 1, firstRow: 1, rows: [['b', null]] }, signal());
    await connector().commitUpload(resumed, signal());
    expect(sdk.committed(destination.projectPath, destination.tablePath)?.rows).toEqual([
      ['a', '2024-01-02'],
      ['b', null],
    ]);
  });

  it('30-4101 for a key that is not the one the token server holds (and for no RSA key at all)', async () => {
    const other = rsaKeyPair().privateKeyPem;
    const error = await failureOf(connector({ key: other }).test(signal()));
    expect(error).toMatchObject({ code: '30-4101', extraDetails: { provider_error: 'invalid_client' } });
    expect(sdk.assertions.at(-1)).toMatchObject({ accepted: false, reason: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    expect((await failureOf(connector({ key: 'not a key' }).test(signal()))).code).toBe('30-4101');
    expect((await failureOf(connector({ overrides: { kid: 'another-kid' } }).test(signal()))).code).toBe('30-4101');
  });

  it('30-4102 when no token comes back, 30-4104 for a refused service key, 30-4105 without a sessionToken', async () => {
    await sdk.fail({ kind: 'no-token' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4102');
    await sdk.fail(undefined);
    const refused = await failureOf(connector({ serviceKey: 'wrong-service-key' }).test(signal()));
    expect(refused.code).toBe('30-4104');
    expect(refused.message).toContain(new URL(sdk.host).host);
    expect(JSON.stringify(refused.extraDetails)).not.toContain('wrong-service-key');
    clientNumber++;
    await sdk.fail({ kind: 'no-session-token' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4105');
  });

  it('30-4103 when nothing listens at the SDK, 30-4100 when it fails', async () => {
    await sdk.fail({ kind: 'unreachable' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4103');
    await sdk.fail({ kind: 'login-server-error' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4100');
    await sdk.fail(undefined);
    const pricing = connector();
    await pricing.test(signal());
    await sdk.fail({ kind: 'server-error' });
    expect((await failureOf(pricing.test(signal()))).code).toBe('30-4100');
    await sdk.fail({ kind: 'unauthorized' });
    expect((await failureOf(pricing.test(signal()))).code).toBe('30-4005');
  });

  it('describes an import with the session; its failure is 10-1046 naming the SDK host', async () => {
    sdk.setTable('\\Sdk', 'Limits\\', { state: 'READY', maxRows: 10, maxColumns: 2 });
    const destination = { projectPath: '\\Sdk', tablePath: 'Limits\\' };
    await expect(connector().describeImport(destination, signal())).resolves.toEqual({ maxRows: 10, maxColumns: 2 });
    await sdk.fail({ kind: 'bad-json' });
    const error = await failureOf(connector().describeImport(destination, signal()));
    expect(error.message).toBe(
      `GET /import call to the external pricing DIM (${new URL(sdk.host).host}) failed: the answer is not an import`,
    );
  });
});
