import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  CONNECTION_OF,
  createConnection,
  createSource,
  sentBack,
  sourceRequest,
  type ConnectionLabel,
  type SourceKind,
  type SourceRequest,
} from './fixtures';

/** Every rule a data source definition is checked by, on create and on update. */
let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor('ds-rules', ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const create = (body: CallOptions<'createDataSource'>['body']) => api.call('createDataSource', { body });
const update = (id: number, body: CallOptions<'updateDataSource'>['body']) =>
  api.call('updateDataSource', { params: { data_source_id: id }, body });

async function sourceThrough<K extends SourceKind>(
  label: ConnectionLabel,
  kind: K,
  overrides: Partial<SourceRequest<K>> = {},
  connectionOverrides: Record<string, unknown> = {},
) {
  const connection = await createConnection(api, s3(), label, connectionOverrides);
  return { connection, response: await create(sourceRequest(kind, connection.id, overrides)) };
}

describe('the connection', () => {
  it('must exist in the caller’s tenant (10-404 naming the connection)', async () => {
    const response = await create(sourceRequest('bucket', 987654));
    expect(response.status).toBe(404);
    expect(response.problem).toMatchObject({ code: '10-404', detail: 'Entity connection with ID 987654 not found' });
    const other = await env.clientFor('ds-rules-other', ['editor']);
    const foreign = await createConnection(other, s3(), 'object_store/secret_key');
    const crossTenant = await create(sourceRequest('bucket', foreign.id));
    expect(crossTenant.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${foreign.id} not found`,
    });
  });

  it('must allow reading (30-1708 naming the data source: its name on create, its id on update)', async () => {
    const request = sourceRequest('bucket', 0);
    const { response } = await sourceThrough(
      'object_store/secret_key',
      'bucket',
      { name: request.name },
      { read: false },
    );
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-1708',
      detail: `Connection of data source ${request.name} must have read permission`,
    });

    const { connection, source } = await createSource(api, s3(), 'bucket');
    const readOff = await api.call('mergeConnection', {
      params: { connection_id: connection.id },
      body: { id: connection.id, lock_version: 0, type: 'object_store', read: false },
    });
    expect(readOff.status).toBe(200);
    const changed = await update(source.id, sentBack(source, { description: 'changed' }));
    expect(changed.problem).toMatchObject({
      code: '30-1708',
      detail: `Connection of data source ${source.id} must have read permission`,
    });
  });
});

describe('the kind must fit the connection type', () => {
  it.each([
    ['bucket', 'warehouse/password', '10-1043', () => 'Unsupported source type warehouse'],
    ['bucket', 'pricing_dim/oauth_client_credentials', '10-1043', () => 'Unsupported source type pricing_dim'],
    ['rdbms', 'object_store/secret_key', '30-1007', (id: number) => `Connection ${id} is not a warehouse connection`],
    [
      'delta_sharing',
      'analytics_db/service_account_key',
      '30-3011',
      (id: number) => `Connection ${id} is not a delta-sharing connection`,
    ],
    [
      'analytics_db',
      'cloud_store/service_account_key',
      '30-3001',
      (id: number) => `Connection ${id} does not support tables view`,
    ],
  ] as const)('%s through %s: %s', async (kind, label, code, detail) => {
    const { connection, response } = await sourceThrough(label, kind);
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({ code, detail: detail(connection.id) });
  });

  it('keeps holding on update to another connection', async () => {
    const { source } = await createSource(api, s3(), 'rdbms');
    const lake = await createConnection(api, s3(), 'object_store/secret_key');
    const response = await update(source.id, sentBack(source, { connection_id: lake.id }));
    expect(response.problem).toMatchObject({
      code: '30-1007',
      detail: `Connection ${lake.id} is not a warehouse connection`,
    });
  });
});

describe('bucket paths', () => {
  it('must lie inside the connection’s path restriction (30-1106 for object stores, 30-1306 for cloud stores)', async () => {
    const s3Outside = await sourceThrough('object_store/secret_key', 'bucket', { path: 'demo/other/' });
    expect(s3Outside.response.problem).toMatchObject({
      code: '30-1106',
      detail: 'Path demo/other/ is out of path restriction bounds demo/sales/',
    });
    expect(
      (await sourceThrough('object_store/secret_key', 'bucket', { path: 'demo/other/x.csv' })).response.problem.code,
    ).toBe('30-1106');
    expect(
      (await sourceThrough('object_store/secret_key', 'bucket', { path: 'demo/sales.csv' })).response.problem.code,
    ).toBe('30-1106');
    expect(
      (await sourceThrough('object_store/secret_key', 'bucket', { path: 'elsewhere/sales/' })).response.problem.code,
    ).toBe('30-1106');
    const gcsOutside = await sourceThrough('cloud_store/service_account_key', 'bucket', { path: 'acme_raw/archive/' });
    expect(gcsOutside.response.problem).toMatchObject({
      code: '30-1306',
      detail: 'Path acme_raw/archive/ is out of path restriction bounds acme_raw/landing/',
    });
  });

  it('may name the restricted folder itself, with or without its trailing slash', async () => {
    for (const path of ['demo/sales/', 'demo/sales', 'demo/sales/2024/', 'demo/sales/2024/01.csv']) {
      expect((await sourceThrough('object_store/secret_key', 'bucket', { path })).response.status, path).toBe(201);
    }
  });

  it('must be well-formed by the store family’s rules', async () => {
    expect(
      (await sourceThrough('object_store/secret_key', 'bucket', { path: 'demo/sales/../x.csv' })).response.problem.code,
    ).toBe('30-1113');
    expect(
      (await sourceThrough('object_store/secret_key', 'bucket', { path: 'Not_A_Bucket/x.csv' })).response.problem.code,
    ).toBe('30-1115');
    expect(
      (await sourceThrough('cloud_store/service_account_key', 'bucket', { path: 'acme_raw/landing//x.csv' })).response
        .problem.code,
    ).toBe('30-1304');
  });
});

describe('rdbms queries', () => {
  it('must be one read-only statement (30-1009)', async () => {
    for (const query of [
      'DELETE FROM sales',
      'WITH x AS (SELECT 1) DELETE FROM t',
      'SELECT 1; DROP TABLE t',
      'SELECT * INTO copy FROM sales',
    ]) {
      const { response } = await sourceThrough('warehouse/password', 'rdbms', { query });
      expect(response.status, query).toBe(400);
      expect(response.problem, query).toMatchObject({
        code: '30-1009',
        detail: 'DML and DDL statements cannot be used in a source definition',
        extraDetails: { query: expect.any(String) },
      });
    }
  });

  it('must not name a warehouse other than the connection’s (30-1004), ignoring case', async () => {
    const { response } = await sourceThrough('warehouse/password', 'rdbms', { warehouse: 'BIG_WH' });
    expect(response.problem).toMatchObject({
      code: '30-1004',
      detail: 'Warehouse in the data source and in the connection do not match (BIG_WH, COMPUTE_WH)',
    });
    expect((await sourceThrough('warehouse/password', 'rdbms', { warehouse: 'compute_wh' })).response.status).toBe(201);
    // A connection without a warehouse pins none.
    expect(
      (await sourceThrough('warehouse/oauth_client_credentials', 'rdbms', { warehouse: 'BIG_WH' })).response.status,
    ).toBe(201);
  });

  it('require a query (10-1400)', async () => {
    const { response } = await sourceThrough('warehouse/password', 'rdbms', { query: '  ' });
    expect(response.problem).toMatchObject({ code: '10-1400', extraDetails: { query: 'must not be empty' } });
  });
});

describe('analytics_db table references', () => {
  const label = CONNECTION_OF.analytics_db;

  it('must be [projectId].[datasetId].[tableName] (30-1419)', async () => {
    const { response } = await sourceThrough(label, 'analytics_db', { table_ref: 'my project.sales.daily' });
    expect(response.problem).toMatchObject({
      code: '30-1419',
      detail: expect.stringContaining('Invalid tableRef my project.sales.daily; format is'),
    });
  });

  it('must name a table (30-1420)', async () => {
    const { response } = await sourceThrough(label, 'analytics_db', { table_ref: 'acme-bi.sales.``' });
    expect(response.problem).toMatchObject({
      code: '30-1420',
      detail: 'TableRef acme-bi.sales.`` has an empty table name',
    });
  });

  it('must lie in the connection’s project (30-1421), from its key or its workload identity', async () => {
    const keyed = await sourceThrough(label, 'analytics_db', { table_ref: '`other project`.sales.daily' });
    expect(keyed.response.problem).toMatchObject({
      code: '30-1421',
      detail: 'Project other project in tableRef does not match connection project acme-bi',
    });
    const federated = await sourceThrough('analytics_db/workload_identity', 'analytics_db', {
      table_ref: 'acme-analytics.sales.daily',
    });
    expect(federated.response.problem).toMatchObject({
      code: '30-1421',
      detail: 'Project acme-analytics in tableRef does not match connection project acme-bi',
    });
  });

  it('must lie in the connection’s dataset when it sets one (30-1422)', async () => {
    const { response } = await sourceThrough(label, 'analytics_db', { table_ref: 'acme-bi.marketing.daily' });
    expect(response.problem).toMatchObject({
      code: '30-1422',
      detail: 'Dataset marketing in tableRef does not match connection dataset sales',
    });
    const anyDataset = await sourceThrough(
      label,
      'analytics_db',
      { table_ref: 'acme-bi.marketing.daily' },
      { dataset_id: null },
    );
    expect(anyDataset.response.status).toBe(201);
  });
});

describe('delta_sharing', () => {
  it('requires share, schema and table (10-1400)', async () => {
    const connection = await createConnection(api, s3(), 'delta_sharing/delta_sharing_profile');
    const response = await create(
      unchecked({ ...sourceRequest('delta_sharing', connection.id), schema: undefined, table: '' }),
    );
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { schema: 'is required', table: 'must not be empty' },
    });
  });
});
