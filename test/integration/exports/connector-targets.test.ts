/**
 * Exports to targets through the Google and Snowflake connectors, end to end over HTTP: a data
 * table version exported to a cloud_store bucket (GCS JSON API fake), an analytics_db table
 * (BigQuery REST fake) and a warehouse table (Snowflake fake), each read back through its
 * fake and compared with the source rows (a column subset, booleans cast to integers); one
 * failure per type with its code, and a failure midway that leaves nothing under the final
 * name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigQueryFake } from '../../fakes/bigquery';
import { GcsFake } from '../../fakes/gcs';
import type { ApiClient } from '../../support/api-client';
import { queryFiles } from '../../support/exports';
import { LOADER, passwordConnection, startWarehouseWorld, type WarehouseWorld } from '../connectors/warehouse-fixtures';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importCompleted, putObjects, tableOver } from '../../support/imports';
import { asText, bigQueryRows, connectorExportCalls, PROJECT } from './connector-targets-support';

const SOURCE_CSV =
  'id,region,amount,paid,day\n1,north,10.5,true,2024-01-31\n2,south,,false,2024-02-29\n3,east,7.25,,\n4,west,1,true,2024-12-01\n';

let env: TestTwin;
let api: ApiClient;
let gcs: GcsFake;
let bigquery: BigQueryFake;
let warehouse: WarehouseWorld;
let writerKey: string;
let loaderKey: string;
let loaderEmail: string;
let tableId: number;
let tableName: string;
/** 2,500 rows: several INSERT batches. */
let bigTableId: number;
const BIG_ROWS = 2_500;
const { createWritable, createTarget, exportAndWait, expectedRows } = connectorExportCalls(() => ({ env, tableId }));

beforeAll(async () => {
  gcs = await GcsFake.start();
  const writer = gcs.auth.addServiceAccount({ project: PROJECT });
  writerKey = writer.keyJson;
  gcs.addBucket('acme_exports', { project: PROJECT, grants: { [writer.email]: 'writer' } });
  gcs.addBucket('acme_locked', { project: PROJECT, grants: { [writer.email]: 'reader' } });
  bigquery = await BigQueryFake.start();
  const loader = bigquery.auth.addServiceAccount({ project: PROJECT });
  loaderKey = loader.keyJson;
  loaderEmail = loader.email;
  bigquery.addDataset(PROJECT, 'exports', [loader.email]);
  bigquery.jobs.allowJobs(PROJECT, loader.email);
  bigquery.jobs.storeLoadsWith((project, dataset, table, value) => {
    try {
      bigquery.addTable(project, dataset, table, value);
      return undefined;
    } catch {
      return { reason: 'notFound', message: `Not found: Dataset ${project}:${dataset}` };
    }
  });
  warehouse = await startWarehouseWorld();
  env = await startTestTwin({
    buckets: ['landing'],
    allowOutbound: [gcs.allowOutbound, bigquery.allowOutbound, ...warehouse.allowOutbound],
    environment: { ...gcs.environment, BIGQUERY_API_ENDPOINT: bigquery.endpoint, CONNECTOR_TIMEOUT_MS: '2000' },
    retryIntervalMs: 10,
  });
  api = env.admin;
  await putObjects(env, 'landing', { 'sales/a.csv': SOURCE_CSV });
  const big = Array.from({ length: BIG_ROWS }, (_, index) => `${index + 1},${index % 2 === 0}`).join('\n');
  await putObjects(env, 'landing', { 'big/rows.csv': `id,flag\n${big}\n` });
  tableId = await tableOver(api, env, 'landing/sales/');
  await importCompleted(api, tableId);
  bigTableId = await tableOver(api, env, 'landing/big/');
  await importCompleted(api, bigTableId);
  tableName = String((await api.call('getDataTable', { params: { data_table_id: tableId } })).body.name);
});

afterAll(async () => {
  await env?.close();
  await gcs?.close();
  await bigquery?.close();
  await warehouse?.close();
});

describe('cloud_store bucket targets', () => {
  let targetId: number;

  beforeAll(async () => {
    const connectionId = await createWritable({
      type: 'cloud_store',
      path_restriction: 'acme_exports/out/',
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: writerKey },
    });
    targetId = await createTarget({
      type: 'bucket',
      connection_id: connectionId,
      path: 'acme_exports/out/{dataset_name}/v{version}/',
    });
  });

  it('writes the file to the rendered folder under a staging name, then its final name, and reads back as the source', async () => {
    const before = gcs.requests.length;
    const done = await exportAndWait(targetId);
    const key = `out/${tableName}/v1/${tableName}-v1.parquet`;
    expect(done, JSON.stringify(done.execution)).toMatchObject({
      execution: { status: 'COMPLETED' },
      exported_table_name: key,
      data_target_details: { bucket: 'acme_exports', key, path: `acme_exports/out/${tableName}/v1/` },
    });
    expect(gcs.keys('acme_exports')).toEqual([key]);
    const exported = await queryFiles(
      [gcs.object('acme_exports', key)!],
      'SELECT * REPLACE (CAST(day AS VARCHAR) AS day) FROM f0',
    );
    expect(exported.types).toMatchObject({ paid: 'INTEGER', day: 'VARCHAR' });
    expect(exported.rows).toEqual(await expectedRows());
    // Uploaded under a staging name, rewritten to the final one, the staging object deleted.
    const calls = gcs.requests.slice(before).filter((call) => call.path.includes('/o'));
    expect(calls.map((call) => call.method)).toEqual(['POST', 'POST', 'DELETE']);
    expect(calls[0]?.query.get('name')).toMatch(new RegExp(`^${key.replaceAll('.', '\\.')}\\.partial-[0-9a-f-]{36}$`));
    expect(calls[1]?.path).toBe(
      `/storage/v1/b/acme_exports/o/${encodeURIComponent(calls[0]?.query.get('name') ?? '')}/rewriteTo/b/acme_exports/o/${encodeURIComponent(key)}`,
    );
    expect(calls[2]?.path).toBe(
      `/storage/v1/b/acme_exports/o/${encodeURIComponent(calls[0]?.query.get('name') ?? '')}`,
    );
  });

  it('writes CSV when asked, and retries a rate-limited upload (30-1307 is transient)', async () => {
    gcs.inject('rate-limit', /^\/upload\//);
    const done = await exportAndWait(targetId, { format: 'csv', columns: ['id', 'region'] });
    expect(done.execution, JSON.stringify(done.execution)).toMatchObject({ status: 'COMPLETED' });
    const csv = gcs.object('acme_exports', `out/${tableName}/v1/${tableName}-v1.csv`)?.toString('utf8');
    expect(csv).toBe('id,region\n1,north\n2,south\n3,east\n4,west\n');
  });

  it('an upload the store never answers is cut at the connector timeout (30-1303, which jobs retry) and the retried export completes', async () => {
    const before = gcs.requests.length;
    gcs.inject('hang', /^\/upload\//);
    const done = await exportAndWait(targetId, { format: 'csv', columns: ['id'] });
    expect(done.execution, JSON.stringify(done.execution)).toMatchObject({ status: 'COMPLETED' });
    expect(gcs.requests.slice(before).filter((call) => call.path.startsWith('/upload/'))).toHaveLength(2);
  });

  it('a failure after the upload (the rewrite answers 503) leaves nothing under the final name, nor the staging object', async () => {
    const keys = gcs.keys('acme_exports');
    gcs.inject('unavailable', /\/rewriteTo\//);
    const done = await exportAndWait(targetId, { format: 'csv', columns: ['region'] });
    expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1300' } });
    expect(gcs.keys('acme_exports')).toEqual(keys);
  });

  it.each([
    ['a bucket the account may only read is denied (30-1301)', 'acme_locked', '30-1301'],
    ['a bucket that does not exist is 30-1302', 'acme_gone', '30-1302'],
  ])('%s', async (_title, bucket, code) => {
    const connectionId = await createWritable({
      type: 'cloud_store',
      path_restriction: `${bucket}/`,
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: writerKey },
    });
    const denied = await createTarget({ type: 'bucket', connection_id: connectionId, path: `${bucket}/out/` });
    const done = await exportAndWait(denied);
    expect(done.execution).toMatchObject({ status: 'FAILED', error: { code } });
    expect(gcs.keys(bucket)).toEqual([]);
  });
});

describe('analytics_db table targets', () => {
  let connectionId: number;
  const table = () => `SALES_${tableName}_V1`.replace(/[^A-Za-z0-9_]/g, '_');

  beforeAll(async () => {
    connectionId = await createWritable({
      type: 'analytics_db',
      dataset_id: 'exports',
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: loaderKey },
    });
  });

  it('loads the version into the rendered table of the dataset (created, then replaced), read back through tabledata.list', async () => {
    const targetId = await createTarget({
      type: 'table',
      connection_id: connectionId,
      table_name: 'SALES_{dataset_name}_V{version}',
    });
    for (let round = 0; round < 2; round += 1) {
      const done = await exportAndWait(targetId);
      expect(done, JSON.stringify(done.execution)).toMatchObject({
        execution: { status: 'COMPLETED' },
        exported_table_name: table(),
        data_target_details: { project: PROJECT, dataset: 'exports', table: table() },
      });
      // WRITE_TRUNCATE: a second export replaces the rows instead of adding to them.
      expect(await bigQueryRows(bigquery, loaderEmail, table())).toEqual(
        (await expectedRows()).map((row) => ({
          'paid:INTEGER': asText(row.paid),
          'id:INTEGER': asText(row.id),
          'amount:FLOAT': asText(row.amount),
          'day:DATE': asText(row.day),
          'region:STRING': asText(row.region),
        })),
      );
    }
  });

  it('a load job BigQuery rejects leaves the table as it was and fails the export (30-1413)', async () => {
    const targetId = await createTarget({
      type: 'table',
      connection_id: connectionId,
      table_name: 'REJECTED_{version}',
    });
    bigquery.jobs.failLoads = {
      reason: 'invalid',
      message: 'Error while reading data, error message: JSON table encountered too many errors',
    };
    try {
      const done = await exportAndWait(targetId);
      expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1413' } });
    } finally {
      bigquery.jobs.failLoads = undefined;
    }
    expect(
      (
        await fetch(`${bigquery.endpoint}/bigquery/v2/projects/${PROJECT}/datasets/exports/tables/REJECTED_1`, {
          headers: { authorization: `Bearer ${bigquery.auth.tokenFor(loaderEmail)}` },
        })
      ).status,
    ).toBe(404);
  });

  it('an account that may not run jobs is denied (30-1417)', async () => {
    const outsider = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'outsider' });
    bigquery.addDataset(PROJECT, 'outside', [outsider.email]);
    const outsiderConnection = await createWritable({
      type: 'analytics_db',
      dataset_id: 'outside',
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: outsider.keyJson },
    });
    const targetId = await createTarget({ type: 'table', connection_id: outsiderConnection, table_name: 'DENIED' });
    const done = await exportAndWait(targetId);
    expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1417' } });
  });
});

describe('warehouse table targets', () => {
  let connectionId: number;
  const table = () => `SALES_${tableName}_V1`.replace(/[^A-Za-z0-9_]/g, '_');
  const rows = (name: string) => warehouse.snowflake.writes.rows(`SALES.PUBLIC.${name.toUpperCase()}`);

  beforeAll(async () => {
    connectionId = await createWritable({
      name: `snowflake ${Math.random()}`,
      ...passwordConnection(warehouse, LOADER, { database: 'SALES', schema: 'PUBLIC', warehouse: 'COMPUTE_WH' }),
    });
  });

  it('creates the table with the export’s columns and inserts the rows in one transaction, in batches with binds; a second export replaces them', async () => {
    const targetId = await createTarget({
      type: 'table',
      connection_id: connectionId,
      table_name: 'SALES_{dataset_name}_V{version}',
    });
    const expected = (await expectedRows()).map((row) => [
      asText(row.paid),
      asText(row.id),
      asText(row.amount),
      asText(row.day),
      asText(row.region),
    ]);
    for (let round = 0; round < 2; round += 1) {
      const before = warehouse.snowflake.queries.length;
      const done = await exportAndWait(targetId);
      expect(done, JSON.stringify(done.execution)).toMatchObject({
        execution: { status: 'COMPLETED' },
        exported_table_name: table(),
        data_target_details: { database: 'SALES', schema: 'PUBLIC', table: table() },
      });
      expect(rows(table())).toEqual(expected);
      const statements = warehouse.snowflake.queries.slice(before).map((sql) => sql.split(' (')[0]);
      expect(statements).toEqual([
        `CREATE TABLE IF NOT EXISTS ${table()}`,
        'BEGIN',
        `DELETE FROM ${table()}`,
        `INSERT INTO ${table()}`,
        'COMMIT',
      ]);
    }
    expect(warehouse.snowflake.writes.columns(`SALES.PUBLIC.${table().toUpperCase()}`)).toEqual([
      { name: 'paid', type: 'fixed', scale: 0 },
      { name: 'id', type: 'fixed', scale: 0 },
      { name: 'amount', type: 'real' },
      { name: 'day', type: 'date' },
      { name: 'region', type: 'text' },
    ]);
  });

  it('inserts a larger version in bounded batches (1,000 rows a statement) inside the one transaction', async () => {
    const targetId = await createTarget({ type: 'table', connection_id: connectionId, table_name: 'BIG_{version}' });
    const before = warehouse.snowflake.queries.length;
    const done = await exportAndWait(targetId, {
      source_id: bigTableId,
      columns: ['id', 'flag'],
      cast_boolean_to_integer: false,
    });
    expect(done.execution, JSON.stringify(done.execution)).toMatchObject({ status: 'COMPLETED' });
    expect(warehouse.snowflake.writes.columns('SALES.PUBLIC.BIG_1')).toEqual([
      { name: 'id', type: 'fixed', scale: 0 },
      { name: 'flag', type: 'boolean' },
    ]);
    const inserts = warehouse.snowflake.queries.slice(before).filter((sql) => sql.startsWith('INSERT'));
    expect(inserts.map((sql) => (sql.match(/\(\?, \?\)/g) ?? []).length)).toEqual([1000, 1000, 500]);
    const written = rows('BIG_1')!;
    expect(written).toHaveLength(BIG_ROWS);
    expect(written.slice(0, 2)).toEqual([
      ['1', 'true'],
      ['2', 'false'],
    ]);
  });

  it('a failure midway (the second INSERT refused) rolls the transaction back: the table keeps none of the export’s rows (30-1003)', async () => {
    const targetId = await createTarget({ type: 'table', connection_id: connectionId, table_name: 'HALF_{version}' });
    warehouse.snowflake.writes.failInsertsAfter(1);
    try {
      const done = await exportAndWait(targetId, { source_id: bigTableId, columns: ['id', 'flag'] });
      expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1003' } });
    } finally {
      warehouse.snowflake.writes.failInsertsAfter(undefined);
    }
    expect(rows('HALF_1')).toEqual([]);
    expect(warehouse.snowflake.queries.slice(-3).map((sql) => sql.split(' (')[0])).toEqual([
      'INSERT INTO HALF_1',
      'INSERT INTO HALF_1',
      'ROLLBACK',
    ]);
  });

  it('a wrong password fails the export with 30-1001', async () => {
    const wrong = await createWritable({
      name: `snowflake wrong ${Math.random()}`,
      ...passwordConnection(
        warehouse,
        { username: LOADER.username, password: 'not-it' },
        { database: 'SALES', schema: 'PUBLIC' },
      ),
    });
    const targetId = await createTarget({ type: 'table', connection_id: wrong, table_name: 'NEVER' });
    const done = await exportAndWait(targetId);
    expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1001' } });
    expect(rows('NEVER')).toBeUndefined();
  });
});
