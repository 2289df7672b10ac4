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
import { startTestTwin, type ApiClient, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable, importAndWait, putObjects, tableOver, waitForJob } from '../../support/imports';

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

describe('data table CRUD', () => {
  it('creates a table without versions', async () => {
    const response = await api.post('/data-tables', { name: 'orders', description: 'all orders', tags: ['sales'], data_source_id: sourceId });
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
    const again = await api.post('/data-tables', { name: 'ORDERS', data_source_id: sourceId });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('10-409');
  });

  it('refuses a data source that does not exist (10-404) and invalid bodies (10-1400)', async () => {
    const missing = await api.post('/data-tables', { name: 'ghost', data_source_id: 999_999 });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: '10-404' });
    expect(missing.body.detail).toContain('data source');
    const invalid = await api.post('/data-tables', { name: '', data_source_id: 'x' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('10-1400');
    expect(Object.keys(invalid.body.extraDetails)).toEqual(expect.arrayContaining(['name', 'data_source_id']));
  });

  it('updates with lock_version; 20-1003 on id mismatch, 20-1002 for a missing table, 10-1006 when stale', async () => {
    const created = (await api.post('/data-tables', { name: 'to-update', data_source_id: sourceId })).body;
    const body = { ...created, name: 'updated', description: 'now described' };
    const updated = await api.put(`/data-tables/${created.id}`, body);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'updated', description: 'now described', lock_version: 1 });

    const mismatch = await api.put(`/data-tables/${created.id}`, { ...body, id: created.id + 1000 });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('20-1003');
    const missing = await api.put('/data-tables/999999', { ...body, id: 999_999 });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('20-1002');
    const stale = await api.put(`/data-tables/${created.id}`, body);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('10-1006');
  });

  it('parallel updates with one lock_version: exactly one wins', async () => {
    const created = (await api.post('/data-tables', { name: 'raced', data_source_id: sourceId })).body;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => api.put(`/data-tables/${created.id}`, { ...created, description: `writer ${index}` })),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409).every((response) => response.body.code === '10-1006')).toBe(true);
    expect((await api.get(`/data-tables/${created.id}`)).body.lock_version).toBe(1);
  });

  it('moving a table to another data source moves the in-use mark', async () => {
    const first = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const second = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const created = (await api.post('/data-tables', { name: 'mover', data_source_id: first })).body;
    expect((await api.delete(`/data-sources/${first}`)).body.code).toBe('30-1707');
    const moved = await api.put(`/data-tables/${created.id}`, { ...created, data_source_id: second });
    expect(moved.status).toBe(200);
    expect(moved.body.data_source_id).toBe(second);
    expect((await api.delete(`/data-sources/${first}`)).status).toBe(204);
    const inUse = await api.delete(`/data-sources/${second}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('30-1707');
  });

  it('a data source is in use while a table uses it; deleting the table frees it', async () => {
    const source = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
    const tableId = await createTable(api, source);
    const refused = await api.delete(`/data-sources/${source}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: '30-1707' });
    expect(refused.body.detail).toContain(String(source));

    expect((await api.delete(`/data-tables/${tableId}`)).status).toBe(204);
    expect((await api.get(`/data-tables/${tableId}`)).status).toBe(404);
    expect((await api.delete(`/data-sources/${source}`)).status).toBe(204);
  });

  it('deletes a table with its versions', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    expect((await api.delete(`/data-tables/${tableId}?lock_version=7`)).body.code).toBe('10-1006');
    expect((await api.delete(`/data-tables/${tableId}?lock_version=0`)).status).toBe(204);
    expect((await api.get(`/data-tables/${tableId}/versions/1`)).status).toBe(404);
    expect((await api.get(`/data-tables/${tableId}/versions`)).status).toBe(404);
  });

  it('lists, filters and sorts', async () => {
    const list = await api.get(`/data-tables?filter=${encodeURIComponent("name co 'o'")}&sort=-name&limit=2`);
    expect(list.status).toBe(200);
    expect(list.body.limit).toBe(2);
    expect(list.body.items.length).toBeLessThanOrEqual(2);
    const names = list.body.items.map((item: { name: string }) => item.name);
    expect([...names].sort().reverse()).toEqual(names);
    expect((await api.get('/data-tables?sort=bogus')).body.code).toBe('10-1400');
  });
});

describe('in use by datasets (the mechanism; datasets come later)', () => {
  it('a table a dataset uses cannot be deleted (20-1023) until the use ends', async () => {
    const tableId = await createTable(api, sourceId);
    const use = (delta: 1 | -1) => transactWrite([dataTableStore.reference('local', tableId, 'datasets', delta).item]);
    expect((await use(1)).committed).toBe(true);
    const refused = await api.delete(`/data-tables/${tableId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: '20-1023' });
    expect(refused.body.detail).toContain(String(tableId));
    expect((await use(-1)).committed).toBe(true);
    expect((await api.delete(`/data-tables/${tableId}`)).status).toBe(204);
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
    const response = await api.post('/data-versions/batch-delete', {
      data_versions: [
        { data_table_id: tableId, version_number: 1 },
        { data_table_id: tableId, version_number: 2 },
      ],
    });
    const byVersion = new Map(response.body.results.map((result: { version_number: number }) => [result.version_number, result]));
    expect(byVersion.get(1)).toMatchObject({ status: 'REJECTED', error: { code: '20-1024', status: 409 } });
    expect(byVersion.get(2)).toMatchObject({ status: 'DELETED' });
    expect((await api.get(`/data-tables/${tableId}/versions/1/preview`)).status).toBe(200);
  });
});

describe('batch create and delete of versions', () => {
  it('answers one result per table: the new version, or that table’s refusal', async () => {
    const tableId = await createTable(api, sourceId);
    const response = await api.post('/data-versions/batch-create', { data_table_ids: [tableId, 999_999] });
    expect(response.status).toBe(202);
    const byTable = new Map(response.body.results.map((result: { data_table_id: number }) => [result.data_table_id, result]));
    expect(byTable.get(tableId)).toMatchObject({ status: 'ACCEPTED', data_version: { version_number: 1 } });
    expect(byTable.get(999_999)).toMatchObject({ status: 'REJECTED', error: { code: '10-404', status: 404 } });
    const duplicate = await api.post('/data-versions/batch-create', { data_table_ids: [tableId, tableId] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.code).toBe('10-1400');
  });

  it('a retried batch create with the same Idempotency-Key gets the first answer, not a second import', async () => {
    const tableId = await createTable(api, sourceId);
    const request = { data_table_ids: [tableId] };
    const headers = { 'idempotency-key': `batch-${tableId}` };
    const first = await api.post('/data-versions/batch-create', request, { headers });
    expect(first.status).toBe(202);
    await waitForJob(api, first.body.results[0].job.status_url.replace('/api/data/v1', ''));
    const retry = await api.post('/data-versions/batch-create', request, { headers });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.results[0].job.job_id).toBe(first.body.results[0].job.job_id);
    expect((await api.get(`/data-tables/${tableId}/versions`)).body.total).toBe(1);
    const reused = await api.post('/data-versions/batch-create', { data_table_ids: [tableId, 999_999] }, { headers });
    expect(reused.status).toBe(400);
    expect(reused.body.extraDetails).toHaveProperty('Idempotency-Key');
  });

  it('deletes versions one by one; numbers are never reused', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    await importAndWait(api, tableId);
    const response = await api.post('/data-versions/batch-delete', {
      data_versions: [
        { data_table_id: tableId, version_number: 1 },
        { data_table_id: tableId, version_number: 9 },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual(
      expect.arrayContaining([
        { data_table_id: tableId, version_number: 1, status: 'DELETED' },
        expect.objectContaining({ data_table_id: tableId, version_number: 9, status: 'REJECTED', error: expect.objectContaining({ code: '10-404' }) }),
      ]),
    );
    expect((await api.get(`/data-tables/${tableId}/versions/1`)).status).toBe(404);
    expect((await api.get(`/data-tables/${tableId}/versions/2/preview`)).status).toBe(200);
    expect((await importAndWait(api, tableId)).version_number).toBe(3);
  });

  it('refuses versions of several tables (20-1001)', async () => {
    const a = await createTable(api, sourceId);
    const b = await createTable(api, sourceId);
    const response = await api.post('/data-versions/batch-delete', {
      data_versions: [
        { data_table_id: a, version_number: 1 },
        { data_table_id: b, version_number: 1 },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('20-1001');
  });
});

describe('isolation and permissions', () => {
  it('another tenant sees none of it', async () => {
    const tableId = await tableOver(api, env, 'landing/t/');
    await importAndWait(api, tableId);
    const other = await env.clientFor('other-tenant', ['admin']);
    for (const path of [`/data-tables/${tableId}`, `/data-tables/${tableId}/versions`, `/data-tables/${tableId}/versions/1`, `/data-tables/${tableId}/versions/1/preview`]) {
      const response = await other.get(path);
      expect(response.status, path).toBe(404);
      expect(response.body.code).toBe('10-404');
    }
    const batch = await other.post('/data-versions/batch-create', { data_table_ids: [tableId] });
    expect(batch.body.results[0]).toMatchObject({ status: 'REJECTED', error: { code: '10-404' } });
    const created = await other.post('/data-tables', { name: 'steal', data_source_id: sourceId });
    expect(created.status).toBe(404);
    expect((await other.get('/data-tables')).body.total).toBe(0);
  });

  it('a viewer reads but cannot import or change; no token is 401', async () => {
    const tableId = await createTable(api, sourceId);
    const viewer = await env.clientFor('local', ['viewer']);
    expect((await viewer.get(`/data-tables/${tableId}`)).status).toBe(200);
    for (const response of [
      await viewer.post('/data-versions/batch-create', { data_table_ids: [tableId] }),
      await viewer.post('/data-tables', { name: 'nope', data_source_id: sourceId }),
      await viewer.delete(`/data-tables/${tableId}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('10-403');
    }
    expect((await env.anonymous.get('/data-tables')).status).toBe(401);
  });
});
