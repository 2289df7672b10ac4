/**
 * pricing_sdk connections over HTTP against the SDK fake, whose token server verifies the
 * private-key JWT: tested only once stored (spec 2.3), behind the transfers toggle, each code
 * from its real cause in the fake; the private key and service key are never echoed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rsaKeyPair, startPricingSdk, type PricingSdkFake } from '../../fakes/pricing-sdk';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

type SdkRequest = Extract<RequestBody<'createConnection'>, { type: 'pricing_sdk' }>;

let sdk: PricingSdkFake;
let env: TestTwin;
let api: ApiClient;
let sequence = 0;

beforeAll(async () => {
  sdk = await startPricingSdk();
  env = await startTestTwin({
    allowOutbound: [sdk.tokenUrl, sdk.host].map((url) => `127.0.0.1:${new URL(url).port}`),
    environment: { CONNECTOR_TIMEOUT_MS: '3000' },
  });
  api = env.admin;
  const toggled = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'transfers', tenant_id: env.admin.tenantId! },
    body: { strategy: 'on' },
  });
  expect(toggled.status, toggled.text).toBe(200);
});

afterEach(() => sdk.fail(undefined));

afterAll(async () => {
  await env?.close();
  await sdk?.stop();
});

function request(options: { privateKey?: string; serviceKey?: string } = {}): SdkRequest {
  return {
    // A connection of its own per test: sessions are kept per connection.
    name: `sdk ${process.pid}-${++sequence}`,
    type: 'pricing_sdk',
    auth: {
      auth_type: 'private_key_jwt',
      token_url: sdk.tokenUrl,
      client_id: sdk.clientId,
      private_key: options.privateKey ?? sdk.privateKeyPem,
      kid: sdk.kid,
      scope: `case-${sequence}`,
      host: sdk.host,
    },
    service_key: options.serviceKey ?? sdk.serviceKey,
  };
}

/** Stores the connection, then tests it: the only test the spec allows a pricing_sdk connection. */
async function testStored(options: { privateKey?: string; serviceKey?: string } = {}) {
  const created = await api.call('createConnection', { body: request(options) });
  expect(created.status, created.text).toBe(201);
  expect(created.text).not.toContain('PRIVATE KEY');
  const response = await api.call('testStoredConnection', {
    params: { connection_id: created.body.id },
    body: { type: 'pricing_sdk' },
  });
  expect(response.text).not.toContain('PRIVATE KEY');
  return response;
}

async function expectProblem(
  options: { privateKey?: string; serviceKey?: string },
  status: number,
  code: string,
): Promise<Awaited<ReturnType<typeof testStored>>['problem']> {
  const response = await testStored(options);
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code, response.text).toBe(code);
  return response.problem;
}

describe('testing a stored pricing_sdk connection', () => {
  it('gets a token with a verified JWT, logs in and pings with the session', async () => {
    const [assertions, logins, calls] = [sdk.assertions.length, sdk.logins.length, sdk.received.calls.length];
    const response = await testStored();
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ type: 'pricing_sdk', service_key: sdk.serviceKey });
    expect(sdk.assertions.slice(assertions)).toEqual([{ accepted: true, reason: 'ok' }]);
    expect(sdk.logins.length).toBe(logins + 1);
    expect(sdk.received.calls.slice(calls)).toEqual(['GET /ping']);
  });

  it('30-4101 when the token server cannot verify the JWT with the key it holds', async () => {
    const problem = await expectProblem({ privateKey: rsaKeyPair().privateKeyPem }, 400, '30-4101');
    expect(problem.extraDetails).toMatchObject({ provider_error: 'invalid_client' });
    expect(sdk.assertions.at(-1)).toMatchObject({ accepted: false });
  });

  it('30-4102 when the token server answers without a token', async () => {
    await sdk.fail({ kind: 'no-token' });
    await expectProblem({}, 400, '30-4102');
  });

  it('30-4104 naming the host when the login refuses the service key', async () => {
    const problem = await expectProblem({ serviceKey: 'another-service-key' }, 400, '30-4104');
    expect(problem.detail).toBe(`SDK login failed; check endpoint ${new URL(sdk.host).host}`);
  });

  it('30-4105 when the login answers no sessionToken', async () => {
    await sdk.fail({ kind: 'no-session-token' });
    await expectProblem({}, 400, '30-4105');
  });

  it('30-4103 when nothing listens at the SDK, 30-4100 when it fails', async () => {
    await sdk.fail({ kind: 'unreachable' });
    const unreachable = await expectProblem({}, 400, '30-4103');
    expect(unreachable.detail).toBe(`Failed to connect to the SDK endpoint ${new URL(sdk.host).host}`);
    await sdk.fail({ kind: 'login-server-error' });
    await expectProblem({}, 500, '30-4100');
    await sdk.fail({ kind: 'server-error' });
    await expectProblem({}, 500, '30-4100');
  });
});
