/**
 * POST /connections/{id}/test-query against the Snowflake fake: the local check first
 * (30-1009, no call), then Snowflake compiles the query without running it (describeOnly) and
 * its refusals become 30-1008 and 30-1010.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asBody, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  NO_DEFAULTS,
  oauthConnection,
  passwordConnection,
  startWarehouseWorld,
  type WarehouseWorld,
} from './warehouse-fixtures';

let world: WarehouseWorld;
let env: TestTwin;
let api: ApiClient;
let loaderConnection: number;

beforeAll(async () => {
  world = await startWarehouseWorld();
  env = await startTestTwin({ allowOutbound: world.allowOutbound });
  api = await env.clientFor('wh-query', ['editor']);
  loaderConnection = await connect({
    name: 'loader',
    ...passwordConnection(world, undefined, { warehouse: 'COMPUTE_WH' }),
  });
});

afterAll(async () => {
  await env?.close();
  await world?.close();
});

async function connect(body: Record<string, unknown>): Promise<number> {
  const created = await api.call('createConnection', { body: asBody('createConnection', body) });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

const testQuery = (connectionId: number, body: CallOptions<'testRdbmsQuery'>['body']) =>
  api.call('testRdbmsQuery', { params: { connection_id: connectionId }, body });

describe('testing an rdbms query on the warehouse', () => {
  it('answers valid when Snowflake compiles the query, without running it', async () => {
    const before = world.snowflake.requests.length;
    for (const query of [
      'SELECT * FROM ORDERS',
      'select id, customer from sales.public.orders limit 10',
      'SELECT "ID" FROM SALES.PUBLIC.ORDERS;',
    ]) {
      const response = await testQuery(loaderConnection, { query });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ valid: true });
    }
    const compiled = world.snowflake.requests.slice(before).filter((call) => call.path === '/queries/v1/query-request');
    expect(compiled).toHaveLength(3);
    for (const call of compiled) expect(call.body).toMatchObject({ describeOnly: true });
    expect(world.snowflake.openSessions()).toBe(0);
  });

  it('compiles through an OAuth connection too', async () => {
    const connectionId = await connect({ name: 'oauth', ...oauthConnection(world) });
    const response = await testQuery(connectionId, { query: 'SELECT CUSTOMER FROM ORDERS' });
    expect(response.status, response.text).toBe(200);
  });

  it('logs in with the warehouse the test names', async () => {
    const connectionId = await connect({ name: 'no warehouse', ...passwordConnection(world) });
    const before = world.snowflake.requests.length;
    expect((await testQuery(connectionId, { query: 'SELECT 1', warehouse: 'REPORTING_WH' })).status).toBe(200);
    const login = world.snowflake.requests.slice(before).find((call) => call.path === '/session/v1/login-request');
    expect(login?.query).toMatchObject({ warehouse: 'REPORTING_WH' });
  });

  it('30-1008 for SQL Snowflake cannot parse, with its code and no SQL echoed', async () => {
    const response = await testQuery(loaderConnection, { query: 'SELECT id FROM orders WHERE' });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-1008',
      detail: 'Invalid SQL syntax',
      extraDetails: { provider_error: '001003' },
    });
  });

  it('30-1010 naming the table or column that does not exist', async () => {
    const table = await testQuery(loaderConnection, { query: 'SELECT * FROM SALES.PUBLIC.REFUNDS' });
    expect(table.status).toBe(400);
    expect(table.problem).toMatchObject({
      code: '30-1010',
      detail: 'Element SALES.PUBLIC.REFUNDS not found or not accessible',
      extraDetails: { provider_error: '002003' },
    });
    const unqualified = await testQuery(loaderConnection, { query: 'SELECT * FROM refunds' });
    expect(unqualified.problem.detail).toBe('Element SALES.PUBLIC.REFUNDS not found or not accessible');
    const column = await testQuery(loaderConnection, { query: 'SELECT discount FROM orders' });
    expect(column.problem).toMatchObject({
      code: '30-1010',
      detail: 'Element DISCOUNT not found or not accessible',
      extraDetails: { provider_error: '000904' },
    });
  });

  it('30-1010 when a name needs a database the session does not have', async () => {
    const connectionId = await connect({ name: 'analyst', ...passwordConnection(world, NO_DEFAULTS) });
    const response = await testQuery(connectionId, { query: 'SELECT * FROM orders' });
    expect(response.problem).toMatchObject({ code: '30-1010', extraDetails: { provider_error: '090105' } });
  });

  it('refuses DML locally (30-1009): Snowflake never sees it', async () => {
    const before = world.snowflake.requests.length;
    const response = await testQuery(loaderConnection, { query: 'DELETE FROM orders' });
    expect(response.problem.code).toBe('30-1009');
    expect(world.snowflake.requests.length).toBe(before);
  });

  it('30-1001 when the stored password no longer works', async () => {
    const connectionId = await connect({
      name: 'stale',
      ...passwordConnection(world, { username: 'loader', password: 'rotated' }),
    });
    expect((await testQuery(connectionId, { query: 'SELECT 1' })).problem.code).toBe('30-1001');
  });
});
