/**
 * Table listing and table details (spec 2.10) over HTTP: analytics_db connections against the
 * BigQuery fake (tables.list in pages), warehouse connections against the Snowflake fake
 * (SHOW TERSE OBJECTS, as the connection's role sees it). Paging, filters, details, the
 * not-found codes, auth failures from the fakes' real answers, and who may ask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { BigQueryFake, type FakeTable as BigQueryTable } from '../../fakes/bigquery';
import { startSnowflakeFake, tableOf, type SnowflakeFake } from '../../fakes/snowflake';
import { asBody, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

const PROJECT = 'acme-analytics';
const LOADER = { username: 'loader', password: 'loader-pw:1' };
const ANALYST = { username: 'analyst', password: 'analyst-pw:2' };

let bigquery: BigQueryFake;
let snowflake: SnowflakeFake;
let env: TestTwin;
let api: ApiClient;
let reader: { readonly email: string; readonly keyJson: string };
let sequence = 0;

const bqTable = (type?: string): BigQueryTable => ({
  ...(type ? { type } : {}),
  schema: [{ name: 'id', type: 'INT64' }],
  rows: [],
});
const sfTable = (extra: { kind?: 'VIEW'; roles?: string[] } = {}) => ({
  ...tableOf([{ name: 'ID', type: 'fixed' }], []),
  ...extra,
});

beforeAll(async () => {
  bigquery = await BigQueryFake.start();
  reader = bigquery.auth.addServiceAccount({ project: PROJECT });
  bigquery.addDataset(PROJECT, 'sales', [reader.email]);
  bigquery.addDataset(PROJECT, 'marketing', [reader.email]);
  bigquery.allowDatasetListing(PROJECT, reader.email);
  for (const name of ['orders', 'customers', 'events', 'returns']) bigquery.addTable(PROJECT, 'sales', name, bqTable());
  bigquery.addTable(PROJECT, 'sales', 'daily_totals', bqTable('VIEW'));
  bigquery.addTable(PROJECT, 'marketing', 'campaigns', bqTable());
  bigquery.addDataset(PROJECT, 'finance', ['controller@acme-analytics.iam.gserviceaccount.com']);
  bigquery.addTable(PROJECT, 'finance', 'payroll', bqTable());
  // Five tables in pages of two: the listing follows nextPageToken twice.
  bigquery.tablePageSize = 2;
  snowflake = await startSnowflakeFake({
    account: '127',
    users: [
      {
        name: LOADER.username,
        password: LOADER.password,
        defaultWarehouse: 'COMPUTE_WH',
        defaultDatabase: 'SALES',
        defaultSchema: 'PUBLIC',
        defaultRole: 'LOADER',
      },
      { name: ANALYST.username, password: ANALYST.password },
    ],
    warehouses: ['COMPUTE_WH'],
    catalog: {
      SALES: {
        PUBLIC: {
          ORDERS: sfTable(),
          EVENTS: sfTable(),
          ORDER_SUMMARY: sfTable({ kind: 'VIEW' }),
          PAYROLL: sfTable({ roles: ['ACCOUNTADMIN'] }),
        },
        STAGING: { RAW_ORDERS: sfTable() },
        INFORMATION_SCHEMA: { TABLES: sfTable({ kind: 'VIEW' }) },
      },
      MARKETING: { PUBLIC: { CAMPAIGNS: sfTable() }, 'Web "Events"': { CLICKS: sfTable() } },
    },
  });
  env = await startTestTwin({
    allowOutbound: [bigquery.allowOutbound, `127.0.0.1:${snowflake.port}`],
    environment: { ...bigquery.environment, CONNECTOR_TIMEOUT_MS: '2000' },
  });
  api = env.admin;
});

afterAll(async () => {
  await env?.close();
  await Promise.all([bigquery?.close(), snowflake?.close()]);
});

async function connection(body: Record<string, unknown>, client = api): Promise<number> {
  const created = await client.call('createConnection', {
    body: asBody('createConnection', { name: `tables ${process.pid}-${++sequence}`, ...body }),
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

const analyticsDb = (keyJson: string, datasetId?: string) => ({
  type: 'analytics_db',
  auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: keyJson },
  ...(datasetId === undefined ? {} : { dataset_id: datasetId }),
});

const warehouse = (
  user: { username: string; password: string },
  settings: { database?: string; schema?: string } = {},
) => ({
  type: 'warehouse',
  auth: { auth_type: 'password', username: user.username, password: user.password, host: snowflake.url },
  ...settings,
});

const list = (
  id: number,
  query: { offset?: number; limit?: number; filter?: string; sort?: string } = {},
  client = api,
) => client.call('listConnectionTables', { params: { connection_id: id }, query });
const details = (id: number, name: string, query: { database?: string; schema?: string } = {}, client = api) =>
  client.call('getConnectionTable', { params: { connection_id: id, table_name: name }, query });

const names = (items: readonly { name: string }[]) => items.map((item) => item.name);

describe('analytics_db tables', () => {
  it('lists the dataset’s tables, following BigQuery’s pages, with ListQuery paging and filters', async () => {
    const id = await connection(analyticsDb(reader.keyJson, 'sales'));
    const before = bigquery.requests.length;
    const all = await list(id);
    expect(all.status, all.text).toBe(200);
    expect(all.body).toMatchObject({ offset: 0, limit: 5, total: 5 });
    expect(all.body.items[0]).toEqual({ name: 'customers', database: PROJECT, schema: 'sales', type: 'TABLE' });
    expect(names(all.body.items)).toEqual(['customers', 'daily_totals', 'events', 'orders', 'returns']);
    expect(bigquery.requests.slice(before).filter((path) => path.endsWith('/datasets/sales/tables'))).toHaveLength(3);

    const page = await list(id, { offset: 1, limit: 2, sort: '-name' });
    expect(page.body).toMatchObject({ offset: 1, limit: 2, total: 5 });
    expect(names(page.body.items)).toEqual(['orders', 'events']);
    const views = await list(id, { filter: "type eq 'VIEW'" });
    expect(views.body.items).toEqual([{ name: 'daily_totals', database: PROJECT, schema: 'sales', type: 'VIEW' }]);
    const bad = await list(id, { filter: "color eq 'red'" });
    expect(bad.status).toBe(400);
    expect(bad.problem).toMatchObject({ code: '10-1400', extraDetails: { filter: expect.any(String) } });
  });

  it('lists every dataset of the project the account may read when the connection names none', async () => {
    const id = await connection(analyticsDb(reader.keyJson));
    const all = await list(id, { filter: "schema eq 'marketing' or name eq 'orders'" });
    expect(all.status, all.text).toBe(200);
    expect(all.body.items).toEqual([
      { name: 'orders', database: PROJECT, schema: 'sales', type: 'TABLE' },
      { name: 'campaigns', database: PROJECT, schema: 'marketing', type: 'TABLE' },
    ]);
    expect((await list(id)).body.total).toBe(6);
  });

  it('gives one table’s details; the dataset is the connection’s or the one asked for', async () => {
    const withDataset = await connection(analyticsDb(reader.keyJson, 'sales'));
    const view = await details(withDataset, 'daily_totals');
    expect(view.status, view.text).toBe(200);
    expect(view.body).toEqual({ name: 'daily_totals', database: PROJECT, schema: 'sales', type: 'VIEW' });
    const project = await connection(analyticsDb(reader.keyJson));
    expect((await details(project, 'campaigns', { schema: 'marketing', database: PROJECT })).body).toEqual({
      name: 'campaigns',
      database: PROJECT,
      schema: 'marketing',
      type: 'TABLE',
    });
    const unnamed = await details(project, 'campaigns');
    expect(unnamed.status).toBe(400);
    expect(unnamed.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { schema: 'required: the connection names no dataset' },
    });
  });

  it('30-1425 for a missing table, 30-1414 for a missing dataset, 30-1421/30-1422 outside the connection', async () => {
    const id = await connection(analyticsDb(reader.keyJson, 'sales'));
    const missing = await details(id, 'nope');
    expect(missing.status).toBe(404);
    expect(missing.problem).toMatchObject({
      code: '30-1425',
      detail: `Table ${PROJECT}.sales.nope not found in the connection`,
    });
    // No BigQuery table id holds a slash or a dot: not asked for at all.
    const before = bigquery.requests.length;
    expect((await details(id, '../datasets')).problem.code).toBe('30-1425');
    expect(bigquery.requests.length).toBe(before);
    expect((await details(id, 'campaigns', { schema: 'marketing' })).problem.code).toBe('30-1422');
    expect((await details(id, 'orders', { database: 'other-project' })).problem.code).toBe('30-1421');
    const gone = await connection(analyticsDb(reader.keyJson, 'gone'));
    const listing = await list(gone);
    expect(listing.status).toBe(404);
    expect(listing.problem).toMatchObject({
      code: '30-1414',
      detail: 'Dataset gone does not exist or is not accessible',
    });
    expect((await details(gone, 'orders')).problem.code).toBe('30-1414');
  });

  it('maps refused credentials, denied access and throttling to the connector’s codes', async () => {
    const retired = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'retired-tables' });
    const retiredId = await connection(analyticsDb(retired.keyJson, 'sales'));
    bigquery.auth.disable(retired.email);
    expect((await list(retiredId)).problem.code).toBe('30-1416');
    const outsider = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'outsider-tables' });
    const denied = await list(await connection(analyticsDb(outsider.keyJson, 'sales')));
    expect(denied.status).toBe(403);
    expect(denied.problem).toMatchObject({
      code: '30-1417',
      extraDetails: { provider_error: 'accessDenied', provider_status: 403 },
    });
    const id = await connection(analyticsDb(reader.keyJson, 'sales'));
    bigquery.inject('rateLimit', /\/datasets\/sales\/tables$/);
    expect((await list(id)).problem).toMatchObject({
      code: '30-1413',
      extraDetails: { provider_error: 'rateLimitExceeded' },
    });
  });
});

describe('warehouse tables', () => {
  it('lists the schema’s tables and views the role sees, without a warehouse', async () => {
    const id = await connection(warehouse(LOADER, { database: 'SALES', schema: 'PUBLIC' }));
    const before = snowflake.queries.length;
    const all = await list(id);
    expect(all.status, all.text).toBe(200);
    expect(all.body.items).toEqual([
      { name: 'EVENTS', database: 'SALES', schema: 'PUBLIC', type: 'TABLE' },
      { name: 'ORDERS', database: 'SALES', schema: 'PUBLIC', type: 'TABLE' },
      { name: 'ORDER_SUMMARY', database: 'SALES', schema: 'PUBLIC', type: 'VIEW' },
    ]);
    expect(snowflake.queries.slice(before)).toEqual(['SHOW TERSE OBJECTS IN SCHEMA SALES.PUBLIC LIMIT 10000']);
    // The analyst has no warehouse at all: SHOW needs none.
    const analyst = await list(await connection(warehouse(ANALYST, { database: 'SALES', schema: 'STAGING' })));
    expect(analyst.body.items).toEqual([{ name: 'RAW_ORDERS', database: 'SALES', schema: 'STAGING', type: 'TABLE' }]);
    expect(snowflake.openSessions()).toBe(0);
  });

  it('lists a database’s schemas without INFORMATION_SCHEMA, or the account, with paging and filters', async () => {
    const database = await connection(warehouse(LOADER, { database: 'SALES' }));
    const page = await list(database, { offset: 1, limit: 2, sort: 'schema,name' });
    expect(page.body).toMatchObject({ offset: 1, limit: 2, total: 4 });
    expect(page.body.items.map((item) => `${item.schema}.${item.name}`)).toEqual([
      'PUBLIC.ORDER_SUMMARY',
      'PUBLIC.ORDERS',
    ]);
    const account = await connection(warehouse(LOADER));
    const filtered = await list(account, {
      filter: "(database eq 'MARKETING' and schema eq 'PUBLIC') or schema eq 'STAGING'",
    });
    expect(names(filtered.body.items)).toEqual(['CAMPAIGNS', 'RAW_ORDERS']);
    expect((await list(account)).body.total).toBe(6);
  });

  it('resolves the connection’s plain names as Snowflake does and quotes the others', async () => {
    const lower = await list(await connection(warehouse(LOADER, { database: 'sales', schema: 'staging' })));
    expect(names(lower.body.items)).toEqual(['RAW_ORDERS']);
    const before = snowflake.queries.length;
    const quoted = await connection(warehouse(LOADER, { database: 'MARKETING', schema: 'Web "Events"' }));
    expect((await list(quoted)).body.items).toEqual([
      { name: 'CLICKS', database: 'MARKETING', schema: 'Web "Events"', type: 'TABLE' },
    ]);
    expect(snowflake.queries.slice(before)).toEqual([
      'SHOW TERSE OBJECTS IN SCHEMA MARKETING."Web ""Events""" LIMIT 10000',
    ]);
    const clicks = await details(await connection(warehouse(LOADER)), 'CLICKS', {
      database: 'MARKETING',
      schema: 'Web "Events"',
    });
    expect(clicks.body).toEqual({ name: 'CLICKS', database: 'MARKETING', schema: 'Web "Events"', type: 'TABLE' });
  });

  it('gives one table’s details by its exact name; others, and tables the role cannot see, are 30-1010', async () => {
    const id = await connection(warehouse(LOADER, { database: 'SALES', schema: 'PUBLIC' }));
    const view = await details(id, 'ORDER_SUMMARY');
    expect(view.status, view.text).toBe(200);
    expect(view.body).toEqual({ name: 'ORDER_SUMMARY', database: 'SALES', schema: 'PUBLIC', type: 'VIEW' });
    expect((await details(id, 'RAW_ORDERS', { schema: 'STAGING' })).body).toEqual({
      name: 'RAW_ORDERS',
      database: 'SALES',
      schema: 'STAGING',
      type: 'TABLE',
    });
    for (const name of ['orders', 'PAYROLL', 'ORDER%', "O'NEIL"]) {
      const missing = await details(id, name);
      expect(missing.status, name).toBe(400);
      expect(missing.problem).toMatchObject({
        code: '30-1010',
        detail: `Element SALES.PUBLIC.${name} not found or not accessible`,
      });
    }
    const account = await connection(warehouse(ANALYST));
    expect((await details(account, 'ORDERS')).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { schema: 'required: the connection names no schema' },
    });
    expect((await details(account, 'CAMPAIGNS', { database: 'MARKETING', schema: 'PUBLIC' })).body.type).toBe('TABLE');
  });

  it('30-1010 for a schema that does not exist, 30-1001 for refused credentials, 30-1015 for a network policy', async () => {
    const missing = await list(await connection(warehouse(LOADER, { database: 'SALES', schema: 'NOPE' })));
    expect(missing.problem).toMatchObject({
      code: '30-1010',
      detail: 'Element SALES.NOPE not found or not accessible',
    });
    const refused = await list(await connection(warehouse({ username: LOADER.username, password: 'wrong' })));
    expect(refused.status).toBe(400);
    expect(refused.problem).toMatchObject({ code: '30-1001', extraDetails: { provider_error: '390100' } });
    const id = await connection(warehouse(LOADER));
    snowflake.behave('ip-blocked');
    try {
      expect((await list(id)).problem.code).toBe('30-1015');
    } finally {
      snowflake.behave('normal');
    }
  });
});

describe('silence', () => {
  it('is bounded by CONNECTOR_TIMEOUT_MS: 30-1413 from BigQuery, 30-1005 from Snowflake', async () => {
    const bq = await connection(analyticsDb(reader.keyJson, 'sales'));
    const sf = await connection(warehouse(LOADER, { database: 'SALES', schema: 'PUBLIC' }));
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    try {
      bigquery.inject('hang', /\/datasets\/sales\/tables\/orders$/);
      const started = Date.now();
      expect((await details(bq, 'orders')).problem).toMatchObject({
        code: '30-1413',
        extraDetails: { provider_error: 'timeout' },
      });
      snowflake.behave('hang-queries');
      const listing = await list(sf);
      expect(listing.status).toBe(408);
      expect(listing.problem.code).toBe('30-1005');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      snowflake.behave('normal');
      process.env.CONNECTOR_TIMEOUT_MS = '2000';
    }
  });
});

describe('who may list tables', () => {
  it('30-3001 for connection types without tables, before any call', async () => {
    const bucket = await connection({
      type: 'object_store',
      auth: {
        auth_type: 'secret_key',
        access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
        secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        endpoint: env.twin.s3.endpoint,
      },
    });
    const listing = await list(bucket);
    expect(listing.status).toBe(400);
    expect(listing.problem).toMatchObject({
      code: '30-3001',
      detail: `Connection ${bucket} does not support tables view`,
    });
    expect((await details(bucket, 'orders')).problem.code).toBe('30-3001');
  });

  it('401 without a token, 403 for a viewer, 10-404 for another tenant’s connection', async () => {
    const id = await connection(warehouse(LOADER, { database: 'SALES', schema: 'PUBLIC' }));
    const anonymous = await list(id, {}, env.anonymous);
    expect(anonymous.status).toBe(401);
    expect(anonymous.problem.code).toBe('10-401');
    const viewer = await details(id, 'ORDERS', {}, await env.clientFor(api.tenantId!, ['viewer']));
    expect(viewer.status).toBe(403);
    expect(viewer.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
    const editor = await list(id, {}, await env.clientFor(api.tenantId!, ['editor']));
    expect(editor.status, editor.text).toBe(200);
    const before = snowflake.requests.length;
    const stranger = await env.clientFor('other-tenant', ['admin']);
    expect((await list(id, {}, stranger)).problem.code).toBe('10-404');
    expect((await details(id, 'ORDERS', {}, stranger)).problem.code).toBe('10-404');
    expect(snowflake.requests.length).toBe(before);
  });
});
