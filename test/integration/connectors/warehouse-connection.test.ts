/**
 * Testing warehouse connections over HTTP: snowflake-sdk logs in to the Snowflake fake (and
 * first gets a token from the OAuth fake for client credentials), and every failure code comes
 * from a failure the fakes really produce.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asBody, type ApiClient } from '../../support/api-client';
import { closedLocalPort, type ClosedPort } from '../../support/closed-port';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  LOADER,
  NO_DEFAULTS,
  OAUTH_CLIENT,
  oauthConnection,
  passwordConnection,
  startWarehouseWorld,
  type WarehouseWorld,
} from './warehouse-fixtures';

let world: WarehouseWorld;
let env: TestTwin;
let api: ApiClient;
/** Nobody listens there, nor can while it is held. */
let closed: ClosedPort;
let closedPort: number;

beforeAll(async () => {
  world = await startWarehouseWorld();
  closed = await closedLocalPort();
  closedPort = closed.port;
  env = await startTestTwin({
    allowOutbound: [...world.allowOutbound, `127.0.0.1:${closedPort}`],
    environment: { CONNECTOR_TIMEOUT_MS: '2000' },
  });
  api = env.admin;
});

afterEach(() => {
  world.snowflake.behave('normal');
  world.idp.behave('normal');
  process.env.CONNECTOR_TIMEOUT_MS = '2000';
});

afterAll(async () => {
  await env?.close();
  await world?.close();
  await closed?.release();
});

type TestBody = ReturnType<typeof passwordConnection> | ReturnType<typeof oauthConnection>;
const test = (body: TestBody & Record<string, unknown>) =>
  api.call('testConnection', { body: asBody('testConnection', body) });

async function expectFailure(body: TestBody & Record<string, unknown>, status: number, code: string) {
  const response = await test(body);
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code).toBe(code);
  return response.problem;
}

describe('testing a warehouse connection', () => {
  it('logs in with a password, reads the session context and logs out', async () => {
    const before = world.snowflake.requests.length;
    const response = await test({
      ...passwordConnection(world),
      database: 'SALES',
      schema: 'PUBLIC',
      warehouse: 'COMPUTE_WH',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      type: 'warehouse',
      database: 'SALES',
      schema: 'PUBLIC',
      warehouse: 'COMPUTE_WH',
      auth: { auth_type: 'password', username: LOADER.username },
    });
    expect(response.text).not.toContain(LOADER.password);

    const calls = world.snowflake.requests.slice(before);
    expect(calls.map((call) => call.path)).toEqual([
      '/session/v1/login-request',
      '/queries/v1/query-request',
      '/session',
    ]);
    expect(calls[0]!.query).toMatchObject({ warehouse: 'COMPUTE_WH', databaseName: 'SALES', schemaName: 'PUBLIC' });
    expect(calls[0]!.body).toMatchObject({
      data: { ACCOUNT_NAME: '127', LOGIN_NAME: LOADER.username, PASSWORD: LOADER.password },
    });
    // Nothing but the account's own endpoints: no telemetry elsewhere, no metadata probes.
    expect(world.snowflake.openSessions()).toBe(0);
  });

  it('logs in with a token from the identity provider for client credentials', async () => {
    const tokens = world.idp.requests.length;
    const before = world.snowflake.requests.length;
    const response = await test(oauthConnection(world));
    expect(response.status, response.text).toBe(200);
    expect(response.text).not.toContain(OAUTH_CLIENT.clientSecret);
    expect(world.idp.requests.slice(tokens)).toEqual([
      {
        authentication: 'basic',
        clientId: OAUTH_CLIENT.clientId,
        grantType: 'client_credentials',
        scope: 'session:role:LOADER',
      },
    ]);
    const login = world.snowflake.requests.slice(before).find((call) => call.path === '/session/v1/login-request');
    expect(login?.body).toMatchObject({ data: { AUTHENTICATOR: 'OAUTH', TOKEN: expect.any(String) } });
  });

  it('tests the stored connection, with overrides for one test', async () => {
    const created = await api.call('createConnection', {
      body: asBody('createConnection', { name: 'snowflake', ...passwordConnection(world), warehouse: 'COMPUTE_WH' }),
    });
    expect(created.status, created.text).toBe(201);
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'warehouse' },
    });
    expect(stored.status, stored.text).toBe(200);
    const other = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'warehouse', warehouse: 'MISSING_WH' },
    });
    expect(other.problem).toMatchObject({ code: '30-1010', detail: 'Element MISSING_WH not found or not accessible' });
  });
});

describe('warehouse connection failures', () => {
  it('30-1001 for a wrong password, with Snowflake’s code only', async () => {
    const problem = await expectFailure(passwordConnection(world, { ...LOADER, password: 'wrong' }), 400, '30-1001');
    expect(problem.extraDetails).toEqual({ provider_error: '390100' });
    expect(problem.detail).toBe('Invalid credentials for the warehouse connection');
  });

  it('30-1001 for a token Snowflake does not accept', async () => {
    // Another account, whose security integration trusts another identity provider.
    const other = await startWarehouseWorld();
    const allowList = process.env.OUTBOUND_ALLOW_LIST;
    process.env.OUTBOUND_ALLOW_LIST = [allowList, ...other.allowOutbound].join(',');
    try {
      const body = oauthConnection(world);
      const problem = await expectFailure(
        { ...body, auth: { ...body.auth, host: other.snowflake.url } },
        400,
        '30-1001',
      );
      expect(problem.extraDetails).toEqual({ provider_error: '390303' });
    } finally {
      process.env.OUTBOUND_ALLOW_LIST = allowList;
      await other.close();
    }
  });

  it('30-1200..30-1207 from the identity provider’s answers', async () => {
    expect(
      (await expectFailure(oauthConnection(world, { clientId: 'unknown-app' }), 400, '30-1200')).extraDetails,
    ).toEqual({
      provider_error: 'unauthorized_client',
      provider_status: 400,
    });
    await expectFailure(oauthConnection(world, { clientSecret: 'wrong' }), 400, '30-1201');
    await expectFailure(oauthConnection(world, { scope: 'session:role:ACCOUNTADMIN' }), 400, '30-1203');
    await expectFailure(
      {
        ...oauthConnection(world),
        auth: { ...oauthConnection(world).auth, token_url: `http://127.0.0.1:${closedPort}/token` },
      },
      400,
      '30-1204',
    );
    world.idp.behave('server-error');
    await expectFailure(oauthConnection(world), 500, '30-1206');
    world.idp.behave('hang');
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    await expectFailure(oauthConnection(world), 500, '30-1205');
  });

  it('30-1002 when nothing answers at the host', async () => {
    const problem = await expectFailure(
      {
        ...passwordConnection(world),
        auth: { ...passwordConnection(world).auth, host: `http://127.0.0.1:${closedPort}` },
      },
      400,
      '30-1002',
    );
    expect(problem.extraDetails).toEqual({ provider_error: 'connection_refused' });
  });

  it('30-1005 when the account never answers, within the connector timeout', async () => {
    world.snowflake.behave('hang');
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const started = Date.now();
    await expectFailure(passwordConnection(world), 408, '30-1005');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('30-1005 when the account logs in and then never answers the query', async () => {
    world.snowflake.behave('hang-queries');
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const started = Date.now();
    await expectFailure(passwordConnection(world), 408, '30-1005');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('30-1013 when the user has no default warehouse and none is named', async () => {
    const problem = await expectFailure(passwordConnection(world, NO_DEFAULTS), 400, '30-1013');
    expect(problem.detail).toBe('No active warehouse selected; select one or set a default');
  });

  it('30-1010 naming the warehouse, database or schema the account does not have', async () => {
    expect(
      (await expectFailure(passwordConnection(world, LOADER, { warehouse: 'NOPE_WH' }), 400, '30-1010')).detail,
    ).toBe('Element NOPE_WH not found or not accessible');
    expect(
      (await expectFailure(passwordConnection(world, LOADER, { database: 'ARCHIVE' }), 400, '30-1010')).detail,
    ).toBe('Element ARCHIVE not found or not accessible');
    expect(
      (await expectFailure(passwordConnection(world, LOADER, { database: 'SALES', schema: 'RAW' }), 400, '30-1010'))
        .detail,
    ).toBe('Element SALES.RAW not found or not accessible');
  });

  it('30-1014 when the host answers the login with something other than Snowflake', async () => {
    world.snowflake.behave('login-forbidden');
    expect((await expectFailure(passwordConnection(world), 400, '30-1014')).extraDetails).toEqual({
      provider_status: 403,
    });
  });

  it('30-1015 when a network policy refuses the service’s address', async () => {
    world.snowflake.behave('ip-blocked');
    expect((await expectFailure(passwordConnection(world), 400, '30-1015')).extraDetails).toEqual({
      provider_error: '390422',
    });
  });

  it('30-1003 for any other failure of the warehouse', async () => {
    world.snowflake.behave('internal-error');
    expect((await expectFailure(passwordConnection(world), 400, '30-1003')).extraDetails).toEqual({
      provider_error: '000603',
    });
  });

  it('30-1130 for a host the outbound guard refuses, before any call', async () => {
    const before = world.snowflake.requests.length;
    await expectFailure(
      { ...passwordConnection(world), auth: { ...passwordConnection(world).auth, host: 'https://10.0.0.7' } },
      400,
      '30-1130',
    );
    expect(world.snowflake.requests.length).toBe(before);
  });
});
