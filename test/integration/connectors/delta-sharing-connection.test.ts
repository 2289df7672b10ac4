/**
 * delta_sharing connections over HTTP against the Delta Sharing fake: the toggle, test
 * connection (unsaved and stored) with bearer and OAuth profiles, the tables view (shares,
 * schemas and tables in pages; one table's columns from its metadata) and every failure code
 * from a real cause of the fake or the network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeltaSharingFake, type DeltaSharingFake } from '../../../infra/local/fakes/delta-sharing';
import { startOAuthFake, type OAuthFake } from '../../../infra/local/fakes/oauth';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { closedLocalPort, type ClosedPort } from '../../support/closed-port';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { DELTA_TABLES } from './delta-sharing-fixtures';

const TIMEOUT_MS = 1_500;
const TOKEN = 'recipient-token-1';
const EXPIRED = 'recipient-token-old';
const CLIENT = { clientId: 'recipient-app', clientSecret: 'app-secret:1', scopes: ['sharing'] };

type DeltaRequest = Extract<RequestBody<'createConnection'>, { type: 'delta_sharing' }>;

let fake: DeltaSharingFake;
let oauth: OAuthFake;
/** Nobody listens there, nor can while it is held. */
let closed: ClosedPort;
let closedPort: number;
let env: TestTwin;
let api: ApiClient;
let sequence = 0;

beforeAll(async () => {
  oauth = await startOAuthFake({ clients: [CLIENT], style: 'generic' });
  fake = await startDeltaSharingFake({ tables: DELTA_TABLES, pageSize: 2, oauth });
  fake.addToken(TOKEN);
  fake.addToken(EXPIRED, Date.now() - 60_000);
  closed = await closedLocalPort();
  closedPort = closed.port;
  env = await startTestTwin({
    allowOutbound: [`127.0.0.1:${fake.port}`, `127.0.0.1:${oauth.port}`, `127.0.0.1:${closedPort}`],
    environment: { CONNECTOR_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  api = env.admin;
});

afterAll(async () => {
  await env?.close();
  await fake?.close();
  await oauth?.close();
  await closed?.release();
});

function request(profile: string): DeltaRequest {
  return {
    name: `sharing ${process.pid}-${++sequence}`,
    type: 'delta_sharing',
    auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: profile },
  };
}

const oauthProfile = (clientSecret = CLIENT.clientSecret) =>
  JSON.stringify({
    shareCredentialsVersion: 2,
    type: 'oauth_client_credentials',
    endpoint: fake.endpoint,
    tokenEndpoint: oauth.tokenUrl,
    clientId: CLIENT.clientId,
    clientSecret,
    scope: 'sharing',
  });

async function expectProblem(profile: string, status: number, code: string) {
  const response = await api.call('testConnection', { body: request(profile) });
  expect(response.status, response.text).toBe(status);
  expect(response.problem.code, response.text).toBe(code);
  return response.problem;
}

async function toggle(strategy: 'on' | 'off') {
  const response = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'delta_sharing', tenant_id: env.admin.tenantId! },
    body: { strategy },
  });
  expect(response.status, response.text).toBe(200);
}

describe('the delta_sharing toggle', () => {
  it('is off by default: test and tables answer 10-1501 naming it, and the fake hears nothing', async () => {
    const before = fake.requests.length;
    const problem = await expectProblem(fake.profile(TOKEN), 501, '10-1501');
    expect(problem.detail).toBe('Feature disabled unless feature flag delta_sharing is on');
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    expect(created.status, created.text).toBe(201);
    const tables = await api.call('listConnectionTables', { params: { connection_id: created.body.id } });
    expect(tables.problem.code).toBe('10-1501');
    expect(fake.requests.length).toBe(before);
  });
});

describe('with the toggle on', () => {
  beforeAll(() => toggle('on'));

  it('tests a bearer profile by listing the shares', async () => {
    const before = fake.requests.length;
    const response = await api.call('testConnection', { body: request(fake.profile(TOKEN)) });
    expect(response.status, response.text).toBe(200);
    const paths = fake.requests.slice(before).map((call) => call.path);
    expect(paths).toHaveLength(1);
    expect(paths[0]).toMatch(/^\/delta-sharing\/shares\?maxResults=\d+$/);
  });

  it('tests a stored connection with its stored profile', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    expect(created.status, created.text).toBe(201);
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'delta_sharing' },
    });
    expect(stored.status, stored.text).toBe(200);
  });

  it('tests an OAuth client-credentials profile (version 2) with a token from the token endpoint', async () => {
    const before = oauth.requests.length;
    const response = await api.call('testConnection', { body: request(oauthProfile()) });
    expect(response.status, response.text).toBe(200);
    expect(oauth.requests.slice(before)).toEqual([
      { authentication: 'basic', clientId: CLIENT.clientId, grantType: 'client_credentials', scope: 'sharing' },
    ]);
  });

  it('answers 30-3017 when the token endpoint refuses the client', async () => {
    const problem = await expectProblem(oauthProfile('wrong-secret'), 400, '30-3017');
    expect(problem.detail).toMatch(/^OAuth authentication error for the connection, /);
  });

  it('answers 30-3005 for a token the server does not know', async () => {
    await expectProblem(fake.profile('not-a-token'), 400, '30-3005');
  });

  it('answers 30-3013 for a token the server says has expired', async () => {
    await expectProblem(fake.profile(EXPIRED), 400, '30-3013');
  });

  it('answers 30-3006 for an endpoint nobody listens on, or one that is not a sharing server', async () => {
    const closed = JSON.stringify({
      shareCredentialsVersion: 1,
      endpoint: `http://127.0.0.1:${closedPort}/`,
      bearerToken: TOKEN,
    });
    expect((await expectProblem(closed, 400, '30-3006')).detail).toContain(`127.0.0.1:${closedPort}`);
    const wrongPath = JSON.stringify({
      shareCredentialsVersion: 1,
      endpoint: `http://127.0.0.1:${fake.port}/not-sharing/`,
      bearerToken: TOKEN,
    });
    await expectProblem(wrongPath, 400, '30-3006');
  });

  it('answers 30-3010 for an answer that does not parse, 30-3007 for a failing or silent server', async () => {
    try {
      fake.behave('malformed');
      await expectProblem(fake.profile(TOKEN), 400, '30-3010');
      fake.behave('server-error');
      expect((await expectProblem(fake.profile(TOKEN), 500, '30-3007')).detail).toContain('HTTP 500');
      fake.behave('hang');
      const started = performance.now();
      expect((await expectProblem(fake.profile(TOKEN), 500, '30-3007')).detail).toContain('timeout');
      expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    } finally {
      fake.behave('normal');
    }
  });

  it('lists every shared table as share.schema.table, following every page', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    const before = fake.requests.length;
    const listed = await api.call('listConnectionTables', {
      params: { connection_id: created.body.id },
      query: { limit: 100 },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((table) => `${table.database}.${table.schema}.${table.name}`).sort()).toEqual([
      'partner.retail.customers',
      'partner.retail.orders',
      'partner.retail.returns',
      'partner.wholesale.stock',
      'research.lab.samples',
    ]);
    // The fake answers at most two items a page: four tables of partner take two pages.
    const partnerPages = fake.requests.slice(before).filter((call) => call.path.includes('/partner/all-tables'));
    expect(partnerPages.map((call) => new URL(call.path, fake.endpoint).searchParams.has('pageToken'))).toEqual([
      false,
      true,
    ]);
  });

  it('shows a table with its columns typed as the import loads them, partition columns marked', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    const details = await api.call('getConnectionTable', {
      params: { connection_id: created.body.id, table_name: 'orders' },
      query: { database: 'partner', schema: 'retail' },
    });
    expect(details.status, details.text).toBe(200);
    expect(details.body).toEqual({
      name: 'orders',
      database: 'partner',
      schema: 'retail',
      type: 'TABLE',
      columns: [
        { name: 'id', type: 'BIGINT', nullable: true, partition: false },
        { name: 'amount', type: 'DECIMAL(10, 2)', nullable: true, partition: false },
        { name: 'placed_at', type: 'TIMESTAMPTZ', nullable: true, partition: false },
        { name: 'region', type: 'VARCHAR', nullable: true, partition: true },
        { name: 'order_date', type: 'DATE', nullable: true, partition: true },
      ],
    });
    const customers = await api.call('getConnectionTable', {
      params: { connection_id: created.body.id, table_name: 'customers' },
      query: { database: 'partner', schema: 'retail' },
    });
    expect(customers.body.columns?.map((column) => column.type)).toEqual(['BIGINT', 'VARCHAR', 'VARCHAR[]']);
  });

  it('answers 30-3012 naming the table for a table, schema or share the server does not have', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    for (const [table, database, schema] of [
      ['lost', 'partner', 'retail'],
      ['orders', 'partner', 'nowhere'],
      ['orders', 'nobody', 'retail'],
    ] as const) {
      const response = await api.call('getConnectionTable', {
        params: { connection_id: created.body.id, table_name: table },
        query: { database, schema },
      });
      expect(response.status, response.text).toBe(404);
      expect(response.problem).toMatchObject({
        code: '30-3012',
        detail: `Not found: table ${database}.${schema}.${table}`,
      });
    }
  });
});

describe("a stored connection's sealed profile", () => {
  beforeAll(() => toggle('on'));

  /** The connection's item in the table, whose sealed secret an operator's partial restore can replace. */
  async function itemSecret(connectionId: number, replacement?: unknown): Promise<unknown> {
    const { DynamoDBDocumentClient, GetCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { keys } = await import('../../../shared/db/keys');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.twin.dynamoEndpoint }));
    const Key = keys.entity(env.admin.tenantId!, 'CONNECTION', connectionId);
    const TableName = process.env.TABLE_NAME;
    try {
      if (replacement !== undefined)
        await client.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'SET #data.#secret = :secret',
            ExpressionAttributeNames: { '#data': 'data', '#secret': 'secret' },
            ExpressionAttributeValues: { ':secret': replacement },
          }),
        );
      const { Item } = await client.send(new GetCommand({ TableName, Key }));
      return (Item?.data as { secret?: unknown } | undefined)?.secret;
    } finally {
      client.destroy();
    }
  }

  it('answers 30-3020 when the sealed profile is of another version than the stored one', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    expect(created.status, created.text).toBe(201);
    const versionOne = await itemSecret(created.body.id);
    const versionTwo = JSON.stringify({
      shareCredentialsVersion: 2,
      type: 'bearer_token',
      endpoint: fake.endpoint,
      bearerToken: TOKEN,
    });
    const updated = await api.call('mergeConnection', {
      params: { connection_id: created.body.id },
      body: {
        id: created.body.id,
        lock_version: created.body.lock_version,
        type: 'delta_sharing',
        auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: versionTwo },
      },
    });
    expect(updated.status, updated.text).toBe(200);
    const stored = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'delta_sharing' },
    });
    expect(stored.status, stored.text).toBe(200);

    // The item's sealed secret put back from a copy taken before the update.
    await itemSecret(created.body.id, versionOne);
    const before = fake.requests.length;
    for (const call of [
      api.call('testStoredConnection', { params: { connection_id: created.body.id }, body: { type: 'delta_sharing' } }),
      api.call('listConnectionTables', { params: { connection_id: created.body.id } }),
    ]) {
      const response = await call;
      expect(response.status, response.text).toBe(500);
      expect(response.problem.code, response.text).toBe('30-3020');
      expect(response.problem.detail).toBe('Secrets match profile version 1 while the profile version is 2');
    }
    expect(fake.requests.length).toBe(before);
  });

  it('answers 30-3019 when the item holds a sealed secret with no profile in it', async () => {
    const created = await api.call('createConnection', { body: request(fake.profile(TOKEN)) });
    expect(created.status, created.text).toBe(201);
    const { seal } = await import('../../../shared/secrets/envelope');
    const { secretContext } = await import('../../../shared/connections/store');
    // Sealed with the connection's own context, so it opens: what is missing is the profile itself.
    await itemSecret(created.body.id, await seal('', secretContext(env.admin.tenantId!, created.body.id)));
    const before = fake.requests.length;
    const response = await api.call('testStoredConnection', {
      params: { connection_id: created.body.id },
      body: { type: 'delta_sharing' },
    });
    expect(response.status, response.text).toBe(500);
    expect(response.problem.code, response.text).toBe('30-3019');
    expect(fake.requests.length).toBe(before);
  });
});
