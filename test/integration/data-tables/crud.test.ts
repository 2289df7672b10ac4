/**
 * Data tables and their versions as resources: CRUD, in-use rules, batch delete, tenant
 * isolation and permissions.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { dataTableStore } from '../../../shared/data-tables/store';
import { keys } from '../../../shared/db/keys';
import { transactWrite } from '../../../shared/db/transactions';
import {
  asBody,
  unchecked,
  type ApiClient,
  type CallOptions,
  type RequestBody,
  type ResponseBody,
} from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
  tableOver,
  waitForVersion,
} from '../../support/imports';

let env: TestTwin;
let api: ApiClient;
let sourceId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  await putObjects(env, 'landing', { 't/a.csv': 'x,y\n1,a\n2,b\n' });
  sourceId = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
});

afterAll(async () => {
  await env?.close();
});

const create = (body: CallOptions<'createDataTable'>['body']) => api.call('createDataTable', { body });
const read = (id: number) => api.call('getDataTable', { params: { data_table_id: id } });
const update = (id: number, body: CallOptions<'updateDataTable'>['body']) =>
  api.call('updateDataTable', { params: { data_table_id: id }, body });
const remove = (id: number, lockVersion?: number) =>
  api.call('deleteDataTable', { params: { data_table_id: id }, query: { lock_version: lockVersion } });
const removeSource = (id: number) => api.call('deleteDataSource', { params: { data_source_id: id } });
const batchCreate = (dataTableIds: number[], headers?: Record<string, string>) =>
  api.call('batchCreateDataVersions', { body: { data_table_ids: dataTableIds }, headers });
const batchDelete = (body: RequestBody<'batchDeleteDataVersions'>) => api.call('batchDeleteDataVersions', { body });
const version = (tableId: number, versionNumber: number) => ({ data_table_id: tableId, version_number: versionNumber });

/** The table as read, sent back as a full update with `changes`; checked to be a valid update. */
const sentBack = (table: ResponseBody<'getDataTable'>, changes: Partial<RequestBody<'updateDataTable'>> = {}) =>
  asBody('updateDataTable', { ...table, ...changes });

describe('data table CRUD', () => {
  it('creates a table without versions', async () => {
    const response = await create({
      name: 'orders',
      description: 'all orders',
      tags: ['sales'],
      data_source_id: sourceId,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/data/v1/data-tables/${response.body.id}`);
    expect(response.body).toMatchObject({
      name: 'orders',
      description: 'all orders',
      tags: ['sales'],
      data_source_id: sourceId,
      lock_version: 0,
      data_version_exist: false,
      latest_data_version: null,
    });
    const again = await create({ name: 'ORDERS', data_source_id: sourceId });
    expect(again.status).toBe(409);
    expect(again.problem.code).toBe('10-409');
  });

  it('refuses a data source that does not exist (10-404) and invalid bodies (10-1400)', async () => {
    const missing = await create({ name: 'ghost', data_source_id: 999_999 });
    expect(missing.status).toBe(404);
    expect(missing.problem).toMatchObject({ code: '10-404' });
    expect(missing.problem.detail).toContain('data source');
    const invalid = await create(unchecked({ name: '', data_source_id: 'x' }));
    expect(invalid.status).toBe(400);
    expect(invalid.problem.code).toBe('10-1400');
    expect(Object.keys(invalid.problem.extraDetails ?? {})).toEqual(expect.arrayContaining(['name', 'data_source_id']));
  });

  it('updates with lock_version; 20-1003 on id mismatch, 20-1002 for a missing table, 10-1006 when stale', async () => {
    const created = (await create({ name: 'to-update', data_source_id: sourceId })).body;
    const body = sentBack(created, { name: 'updated', description: 'now described' });
    const updated = await update(created.id, body);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'updated', description: 'now described', lock_version: 1 });

    const mismatch = await update(created.id, { ...body, id: created.id + 1000 });
    expect(mismatch.status).toBe(400);
    expect(mismatch.problem.code).toBe('20-1003');
    const missing = await update(999_999, { ...body, id: 999_999 });
    expect(missing.status).toBe(400);
    expect(missing.problem.code).toBe('20-1002');
    const stale = await update(created.id, body);
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
  });

  it('parallel updates with one lock_version: exactly one wins', async () => {
    const created = (await create({ name: 'raced', data_source_id: sourceId })).body;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        update(created.id, sentBack(created, { description: `writer ${index}` })),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(
      responses.filter((response) => response.status === 409).every((response) => response.problem.code === '10-1006'),
    ).toBe(true);
    expect((await read(created.id)).body.lock_version).toBe(1);
  });

  it('moving a table to another data source moves the in-use mark', async () => {
    const first = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const second = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const created = (await create({ name: 'mover', data_source_id: first })).body;
    expect((await removeSource(first)).problem.code).toBe('30-1707');
    const moved = await update(created.id, sentBack(created, { data_source_id: second }));
    expect(moved.status).toBe(200);
    expect(moved.body.data_source_id).toBe(second);
    expect((await removeSource(first)).status).toBe(204);
    const inUse = await removeSource(second);
    expect(inUse.status).toBe(409);
    expect(inUse.problem.code).toBe('30-1707');
  });

  it('a data source is in use while a table uses it; deleting the table frees it', async () => {
    const source = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const tableId = await createTable(api, source);
    const refused = await removeSource(source);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({ code: '30-1707' });
    expect(refused.problem.detail).toContain(String(source));

    expect((await remove(tableId)).status).toBe(204);
    expect((await read(tableId)).status).toBe(404);
    expect((await removeSource(source)).status).toBe(204);
  });

  it('deletes a table with its versions', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    expect((await remove(tableId, 7)).problem.code).toBe('10-1006');
    expect((await remove(tableId, 0)).status).toBe(204);
    expect((await api.call('getDataVersion', { params: version(tableId, 1) })).status).toBe(404);
    expect((await api.call('listDataVersions', { params: { data_table_id: tableId } })).status).toBe(404);
  });

  it('lists, filters and sorts', async () => {
    const list = await api.call('listDataTables', { query: { filter: "name co 'o'", sort: '-name', limit: 2 } });
    expect(list.status).toBe(200);
    expect(list.body.limit).toBe(2);
    expect(list.body.items.length).toBeLessThanOrEqual(2);
    const names = list.body.items.map((item) => item.name);
    expect([...names].sort().reverse()).toEqual(names);
    expect((await api.call('listDataTables', { query: { sort: 'bogus' } })).problem.code).toBe('10-1400');
  });
});

describe('in use by datasets (the mechanism; datasets come later)', () => {
  it('a table a dataset uses cannot be deleted (20-1023) until the use ends', async () => {
    const tableId = await createTable(api, sourceId);
    const use = (delta: 1 | -1) => transactWrite([dataTableStore.reference('local', tableId, 'datasets', delta).item]);
    expect((await use(1)).committed).toBe(true);
    const refused = await remove(tableId);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({ code: '20-1023' });
    expect(refused.problem.detail).toContain(String(tableId));
    expect((await use(-1)).committed).toBe(true);
    expect((await remove(tableId)).status).toBe(204);
  });

  it('a version a dataset uses cannot be deleted (20-1024); the others can', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    await importAndWait(api, tableId);
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: keys.version('local', 'DATA_TABLE', tableId, 1),
        UpdateExpression: 'SET ref_datasets = :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const response = await batchDelete({ data_versions: [version(tableId, 1), version(tableId, 2)] });
    const byVersion = new Map(response.body.results.map((result) => [result.version_number, result]));
    expect(byVersion.get(1)).toMatchObject({ status: 'REJECTED', error: { code: '20-1024', status: 409 } });
    expect(byVersion.get(2)).toMatchObject({ status: 'DELETED' });
    expect((await api.call('previewDataVersion', { params: version(tableId, 1) })).status).toBe(200);
  });
});

describe('batch create and delete of versions', () => {
  it('answers one result per table: the new version, or that table’s refusal', async () => {
    const tableId = await createTable(api, sourceId);
    const response = await batchCreate([tableId, 999_999]);
    expect(response.status).toBe(202);
    const byTable = new Map(response.body.results.map((result) => [result.data_table_id, result]));
    expect(byTable.get(tableId)).toMatchObject({ status: 'ACCEPTED', data_version: { version_number: 1 } });
    expect(byTable.get(999_999)).toMatchObject({ status: 'REJECTED', error: { code: '10-404', status: 404 } });
    const duplicate = await batchCreate([tableId, tableId]);
    expect(duplicate.status).toBe(400);
    expect(duplicate.problem.code).toBe('10-1400');
  });

  it('a retried batch create with the same Idempotency-Key gets the first answer, not a second import', async () => {
    const tableId = await createTable(api, sourceId);
    const headers = { 'idempotency-key': `batch-${tableId}` };
    const first = await batchCreate([tableId], headers);
    expect(first.status).toBe(202);
    const [accepted] = first.body.results;
    await waitForVersion(api, tableId, accepted!.data_version!.version_number);
    const retry = await batchCreate([tableId], headers);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.results[0]?.job?.job_id).toBe(accepted!.job!.job_id);
    expect((await api.call('listDataVersions', { params: { data_table_id: tableId } })).body.total).toBe(1);
    const reused = await batchCreate([tableId, 999_999], headers);
    expect(reused.status).toBe(400);
    expect(reused.problem.extraDetails).toHaveProperty('Idempotency-Key');
  });

  it('deletes versions one by one; numbers are never reused', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    await importAndWait(api, tableId);
    const response = await batchDelete({ data_versions: [version(tableId, 1), version(tableId, 9)] });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual(
      expect.arrayContaining([
        { data_table_id: tableId, version_number: 1, status: 'DELETED' },
        expect.objectContaining({
          data_table_id: tableId,
          version_number: 9,
          status: 'REJECTED',
          error: expect.objectContaining({ code: '10-404' }),
        }),
      ]),
    );
    expect((await api.call('getDataVersion', { params: version(tableId, 1) })).status).toBe(404);
    expect((await api.call('previewDataVersion', { params: version(tableId, 2) })).status).toBe(200);
    expect((await importAndWait(api, tableId)).version_number).toBe(3);
  });

  it('refuses versions of several tables (20-1001)', async () => {
    const a = await createTable(api, sourceId);
    const b = await createTable(api, sourceId);
    const response = await batchDelete({ data_versions: [version(a, 1), version(b, 1)] });
    expect(response.status).toBe(400);
    expect(response.problem.code).toBe('20-1001');
  });
});

describe('isolation and permissions', () => {
  it('another tenant sees none of it', async () => {
    const tableId = await tableOver(api, env, 'landing/t/');
    await importAndWait(api, tableId);
    const other = await env.clientFor('other-tenant', ['admin']);
    const reads = {
      getDataTable: await other.call('getDataTable', { params: { data_table_id: tableId } }),
      listDataVersions: await other.call('listDataVersions', { params: { data_table_id: tableId } }),
      getDataVersion: await other.call('getDataVersion', { params: version(tableId, 1) }),
      previewDataVersion: await other.call('previewDataVersion', { params: version(tableId, 1) }),
    };
    for (const [operation, response] of Object.entries(reads)) {
      expect(response.status, operation).toBe(404);
      expect(response.problem.code).toBe('10-404');
    }
    const batch = await other.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } });
    expect(batch.body.results[0]).toMatchObject({ status: 'REJECTED', error: { code: '10-404' } });
    const created = await other.call('createDataTable', { body: { name: 'steal', data_source_id: sourceId } });
    expect(created.status).toBe(404);
    expect((await other.call('listDataTables')).body.total).toBe(0);
  });

  it('a viewer reads but cannot import or change; no token is 401', async () => {
    const tableId = await createTable(api, sourceId);
    const viewer = await env.clientFor('local', ['viewer']);
    expect((await viewer.call('getDataTable', { params: { data_table_id: tableId } })).status).toBe(200);
    for (const response of [
      await viewer.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } }),
      await viewer.call('createDataTable', { body: { name: 'nope', data_source_id: sourceId } }),
      await viewer.call('deleteDataTable', { params: { data_table_id: tableId } }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.problem.code).toBe('10-403');
    }
    expect((await env.anonymous.call('listDataTables')).status).toBe(401);
  });
});
