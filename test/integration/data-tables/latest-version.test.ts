/**
 * A data table's latest version comes from the table's own item (a copy kept in step with
 * the version): GET and the list show exactly what GET of the version shows, through imports
 * that complete or fail, a worker that went silent, and deletion of the newest version; and
 * listing many tables reads no versions at all. Items are parsed when read: a corrupt one
 * fails loudly.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { dataTableStore } from '../../../shared/data-tables/store';
import { dataVersions } from '../../../shared/data-tables/versions';
import { keys } from '../../../shared/db/keys';
import { markRunning } from '../../../shared/jobs/status';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  importCompleted,
  putObjects,
} from '../../support/imports';

let env: TestTwin;
let api: ApiClient;
let sourceId: number;
let emptySourceId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  await putObjects(env, 'landing', { 't/a.csv': 'x,y\n1,a\n2,b\n', 'empty/e.csv': '' });
  const connectionId = await createObjectStoreConnection(api, env);
  sourceId = await createBucketSource(api, connectionId, 'landing/t/');
  emptySourceId = await createBucketSource(api, connectionId, 'landing/empty/');
});

afterAll(async () => {
  await env?.close();
});

const version = (tableId: number, versionNumber: number) => ({ data_table_id: tableId, version_number: versionNumber });

/**
 * The table shows `versionNumber` as its latest version exactly as the version reads itself,
 * in GET and in the list; these writes are not edits of the table (lock_version stays 0).
 */
async function expectLatest(tableId: number, versionNumber: number | null): Promise<void> {
  const table = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body;
  expect(table.lock_version).toBe(0);
  if (versionNumber === null) {
    expect(table).toMatchObject({ data_version_exist: false, latest_data_version: null });
  } else {
    expect(table.data_version_exist).toBe(true);
    expect(table.latest_data_version).toEqual(
      (await api.call('getDataVersion', { params: version(tableId, versionNumber) })).body,
    );
  }
  const listed = (await api.call('listDataTables', { query: { filter: `id eq ${tableId}` } })).body.items;
  expect(listed).toEqual([table]);
}

describe('the latest version on the table', () => {
  it('follows an import that completes', async () => {
    const tableId = await createTable(api, sourceId);
    await expectLatest(tableId, null);
    await importCompleted(api, tableId);
    await expectLatest(tableId, 1);
    const table = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body;
    expect(table.latest_data_version).toMatchObject({ version_number: 1, metadata: { row_count: 2, column_count: 2 } });
  });

  it('follows an import that fails', async () => {
    const tableId = await createTable(api, emptySourceId);
    expect((await importAndWait(api, tableId)).execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-1005' },
    });
    await expectLatest(tableId, 1);
  });

  it('reads FAILED 10-1047 when the worker went silent, and moves to the import that takes over', async () => {
    const tableId = await createTable(api, sourceId);
    // A creation whose state machine never started: only the status writes act on it.
    const { job } = await dataVersions.begin('local', { id: 'test' }, tableId);
    await expectLatest(tableId, 1);
    // The worker's last sign of life, written through the real status write, was an hour ago.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() - 3_600_000);
      await markRunning(job, { stage: 'READING', percent: 5 });
    } finally {
      vi.useRealTimers();
    }
    const table = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body;
    expect(table.latest_data_version?.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-1047' },
      progress: { percent: 5 },
    });
    await expectLatest(tableId, 1);

    await importCompleted(api, tableId);
    await expectLatest(tableId, 2);
    expect((await api.call('getDataVersion', { params: version(tableId, 1) })).body.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-1047' },
    });
  });

  it('moves back when the newest version is deleted, stays when an older one is, and is gone with the last', async () => {
    const tableId = await createTable(api, sourceId);
    await importAndWait(api, tableId);
    await importAndWait(api, tableId);
    const remove = async (versionNumber: number) => {
      const response = await api.call('batchDeleteDataVersions', {
        body: { data_versions: [version(tableId, versionNumber)] },
      });
      expect(response.body.results).toEqual([{ ...version(tableId, versionNumber), status: 'DELETED' }]);
    };
    await remove(2);
    await expectLatest(tableId, 1);
    expect((await importAndWait(api, tableId)).version_number).toBe(3);
    await expectLatest(tableId, 3);
    await remove(1);
    await expectLatest(tableId, 3);
    await remove(3);
    await expectLatest(tableId, null);
  });
});

/**
 * The DynamoDB requests the service makes for `tenant` while `run` runs (the twin runs in this
 * process). Requests for other tenants are left out: jobs of earlier tests may still be writing
 * their last steps through the same client on a loaded machine.
 */
async function requestsDuring(tenant: string, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const { middlewareStack } = dynamoDocumentClient();
  middlewareStack.add(
    (next, context) => (args) => {
      if (JSON.stringify(args.input).includes(`"T#${tenant}#`)) seen.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  try {
    await run();
  } finally {
    middlewareStack.remove('countRequests');
  }
  return seen.sort();
}

describe('the newest COMPLETED version', () => {
  it('is found past newer versions that failed, over more than one page, and is none before any', async () => {
    const tableId = await createTable(
      api,
      await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/flaky/'),
    );
    expect(await dataVersions.newestCompleted(env.twin.admin.tenant_id, tableId)).toBeUndefined();
    await putObjects(env, 'landing', { 'flaky/a.csv': 'x\n1\n' });
    await importCompleted(api, tableId);
    await putObjects(env, 'landing', { 'flaky/a.csv': '' });
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await importAndWait(api, tableId)).execution.status).toBe('FAILED');
    expect((await dataVersions.newestCompleted(env.twin.admin.tenant_id, tableId))?.version_number).toBe(1);
  });
});

describe('listing data tables', () => {
  it('reads no versions: one Query for any number of tables', async () => {
    const tenant = 'latest-list';
    const client = await env.clientFor(tenant, ['admin']);
    const source = await createBucketSource(client, await createObjectStoreConnection(client, env), 'landing/t/');
    const tables = [];
    for (let index = 0; index < 12; index += 1) tables.push(await createTable(client, source));
    // Versions whose jobs never start: nothing else touches the table while requests are counted.
    for (const tableId of tables) await dataVersions.begin(tenant, { id: 'test' }, tableId);

    const one = await requestsDuring(tenant, () => client.call('listDataTables', { query: { limit: '1' } }));
    let listed: number[] = [];
    const all = await requestsDuring(tenant, async () => {
      const items = (await client.call('listDataTables')).body.items;
      listed = items.map((item) => item.latest_data_version?.version_number ?? 0);
    });
    expect(listed).toEqual(tables.map(() => 1));
    expect(all.filter((command) => command === 'QueryCommand')).toHaveLength(1);
    expect(all).toEqual(one);
  });
});

describe('reading stored items', () => {
  it('fails loudly on an item that does not match its schema, naming its kind and key', async () => {
    // A tenant of its own: every list of its tables reads the corrupt item.
    const tenant = 'corrupt-items';
    const client = await env.clientFor(tenant, ['admin']);
    const tableId = await createTable(
      client,
      await createBucketSource(client, await createObjectStoreConnection(client, env), 'landing/t/'),
    );
    const key = keys.entity(tenant, 'DATA_TABLE', tableId);
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: key,
        UpdateExpression: 'SET #data.data_source_id = :text',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: { ':text': 'seven' },
      }),
    );
    await expect(dataTableStore.get(tenant, tableId)).rejects.toThrow(
      `DATA_TABLE item ${key.pk} / ${key.sk} does not match its schema`,
    );
    await expect(dataTableStore.get(tenant, tableId)).rejects.toThrow('data.data_source_id');
    const response = await client.call('getDataTable', { params: { data_table_id: tableId } });
    expect(response.status).toBe(500);
    expect(response.problem.code).toBe('10-500');
  });
});
