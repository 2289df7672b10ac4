/**
 * Retention over HTTP (docs/retention.md): the policy, which versions show an expiration_date,
 * what a sweep deletes (items through the API, files in the data bucket), 20-1061, and sweeps
 * that run at once or die half-way. The twin's retention clock moves instead of days passing.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
} from '../../support/imports';
import { localS3Client } from '../../support/local-s3';

const DAY_MS = 86_400_000;
let env: TestTwin;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  await putObjects(env, 'landing', { 'sales/a.csv': 'id,amount\n1,10\n2,20\n' });
});
afterAll(() => env?.close());
afterEach(() => env.twin.retention.resetClock());

async function tenantWithRetention(tenantId: string, on: boolean): Promise<ApiClient> {
  // The client first: it makes the tenant, and only a registered tenant has overrides (50-1003).
  const api = await env.clientFor(tenantId, ['admin']);
  if (on) {
    const override = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: 'retention', tenant_id: tenantId },
      body: { strategy: 'on' },
    });
    expect(override.status, override.text).toBe(200);
  }
  return api;
}

async function tableOf(api: ApiClient, path: string, completed: number): Promise<number> {
  const tableId = await createTable(
    api,
    await createBucketSource(api, await createObjectStoreConnection(api, env), path),
  );
  for (let version = 1; version <= completed; version += 1) await importAndWait(api, tableId);
  return tableId;
}

async function setPolicy(api: ApiClient, thresholdDays: number): Promise<void> {
  const current = (await api.call('getRetentionPolicy')).body;
  const set = await api.call('putRetentionPolicy', {
    body: { enabled: true, rule: { threshold_days: thresholdDays }, lock_version: current.lock_version },
  });
  expect(set.status, set.text).toBe(200);
}

async function dataBucketKeys(prefix: string): Promise<string[]> {
  const s3 = localS3Client(env.twin.s3.endpoint);
  try {
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: prefix }));
    return (listing.Contents ?? []).map((object) => object.Key!);
  } finally {
    s3.destroy();
  }
}

const versionStatus = async (api: ApiClient, tableId: number, versionNumber: number) =>
  (await api.call('getDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } })).status;

const expirations = async (api: ApiClient, tableId: number) =>
  (await api.call('listDataVersions', { params: { data_table_id: tableId } })).body.items.map((version) => [
    version.version_number,
    version.expiration_date,
  ]);

const plusDays = (date: string, days: number) => new Date(Date.parse(date) + days * DAY_MS).toISOString();

describe('retention off', () => {
  it('refuses the policy routes with 10-1501, expires nothing and a sweep deletes nothing', async () => {
    const api = await tenantWithRetention('retention-off', false);
    const tableId = await tableOf(api, 'landing/sales/', 2);
    const policy = await api.call('getRetentionPolicy');
    expect(policy.status).toBe(501);
    expect(policy.problem.code).toBe('10-1501');

    env.twin.retention.advanceClock(400 * DAY_MS);
    await env.twin.retention.sweep();
    expect(await expirations(api, tableId)).toEqual([
      [1, null],
      [2, null],
    ]);
    expect(await versionStatus(api, tableId, 1)).toBe(200);
    expect(await dataBucketKeys(`retention-off/tables/${tableId}/v1/`)).not.toEqual([]);
  });
});

describe('retention on', () => {
  it('checks the policy: 20-1060 without a rule, 10-1006 on a stale lock_version', async () => {
    const api = await tenantWithRetention('retention-rules', true);
    const initial = await api.call('getRetentionPolicy');
    expect(initial.body).toMatchObject({ enabled: false, rule: null, lock_version: 0 });
    const ruleless = await api.call('putRetentionPolicy', { body: { enabled: true, lock_version: 0 } });
    expect(ruleless.status).toBe(400);
    expect(ruleless.problem.code).toBe('20-1060');
    await setPolicy(api, 30);
    const stale = await api.call('putRetentionPolicy', {
      body: { enabled: false, rule: null, lock_version: 0 },
    });
    expect(stale.problem.code).toBe('10-1006');
    expect((await api.call('getRetentionPolicy')).body).toMatchObject({
      enabled: true,
      rule: { threshold_days: 30 },
      lock_version: 1,
    });
  });

  it('expires what the policy may delete, refuses imports behind an expired failure, and sweeps only that', async () => {
    const api = await tenantWithRetention('retention-on', true);
    const kept = await tableOf(api, 'landing/sales/', 3);
    const failing = await tableOf(api, 'landing/missing/', 0);
    expect((await importAndWait(api, failing)).execution.status).toBe('FAILED');
    // A dataset whose first graph version pins version 1; version 2 of the graph copies it.
    const datasetId = (await api.call('createDataset', { body: { name: 'retention-graph' } })).body.id;
    const node = await api.call('addDatasetNode', {
      params: { dataset_id: datasetId, version_number: 1 },
      body: { dataset_id: datasetId, node_type: 'TABLE', data_table_id: kept, data_table_version_number: 1 },
    });
    expect(node.status, node.text).toBe(201);
    const copy = await api.call('createDatasetVersion', {
      params: { dataset_id: datasetId },
      body: { dataset_id: datasetId, source_transformation_graph_version_number: 1 },
    });
    expect(copy.status, copy.text).toBe(201);

    await setPolicy(api, 1);
    const versions = (await api.call('listDataVersions', { params: { data_table_id: kept } })).body.items;
    // Pinned by a node, expiring, and the newest COMPLETED one.
    expect(versions.map((version) => version.expiration_date)).toEqual([
      null,
      plusDays(versions[1]!.created_date, 1),
      null,
    ]);
    const graphVersions = (await api.call('listDatasetVersions', { params: { dataset_id: datasetId } })).body.items;
    expect(graphVersions.map((graph) => graph.expiration_date)).toEqual([
      plusDays(graphVersions[0]!.created_date, 1),
      null,
    ]);
    expect((await expirations(api, failing))[0]![1]).toEqual(expect.any(String));

    const preview = await api.call('previewRetentionSweep', {
      query: { as_of: new Date(Date.now() + 2 * DAY_MS).toISOString() },
    });
    expect(
      preview.body.data_versions.map(({ data_table_id, version_number }) => [data_table_id, version_number]),
    ).toEqual([
      [kept, 2],
      [failing, 1],
    ]);
    expect(preview.body.transformation_graphs.map((graph) => graph.version_number)).toEqual([1]);
    expect((await api.call('previewRetentionSweep')).body.data_versions).toEqual([]);

    env.twin.retention.advanceClock(2 * DAY_MS);
    const refused = await api.call('batchCreateDataVersions', { body: { data_table_ids: [failing] } });
    expect(refused.body.results[0]).toMatchObject({ status: 'REJECTED', error: { code: '20-1061' } });

    const swept = await env.twin.retention.sweep();
    const mine = swept.deleted.filter((thing) => thing.tenant_id === 'retention-on');
    expect(mine.map(({ subject, parent_id, version_number }) => [subject, parent_id, version_number])).toEqual([
      ['DATA_VERSION', kept, 2],
      ['DATA_VERSION', failing, 1],
      ['TRANSFORMATION_GRAPH', datasetId, 1],
    ]);
    expect(await versionStatus(api, kept, 2)).toBe(404);
    expect(await versionStatus(api, kept, 1)).toBe(200);
    expect(await versionStatus(api, kept, 3)).toBe(200);
    expect(await dataBucketKeys(`retention-on/tables/${kept}/v2/`)).toEqual([]);
    expect(await dataBucketKeys(`retention-on/tables/${kept}/v1/`)).not.toEqual([]);
    expect(await dataBucketKeys(`retention-on/tables/${kept}/v3/`)).not.toEqual([]);
    const graphsLeft = (await api.call('listDatasetVersions', { params: { dataset_id: datasetId } })).body.items;
    expect(graphsLeft.map((graph) => graph.version_number)).toEqual([2]);

    const again = await api.call('batchCreateDataVersions', { body: { data_table_ids: [failing] } });
    expect(again.body.results[0]).toMatchObject({ status: 'ACCEPTED' });
    expect((await env.twin.retention.sweep()).deleted.filter((thing) => thing.tenant_id === 'retention-on')).toEqual(
      [],
    );
  });

  it('deletes each expired version once across sweeps that die half-way and sweeps that run at once', async () => {
    const tenant = 'retention-race';
    const api = await tenantWithRetention(tenant, true);
    const tables = [await tableOf(api, 'landing/sales/', 4), await tableOf(api, 'landing/sales/', 3)];
    await setPolicy(api, 1);
    env.twin.retention.advanceClock(2 * DAY_MS);

    // Sweeps killed after 1, 2, 4... ms: each dies wherever it happens to be.
    const deleted: string[] = [];
    for (let afterMs = 1; afterMs <= 64; afterMs *= 2) {
      const kill = new AbortController();
      setTimeout(() => kill.abort(), afterMs);
      const outcome = await env.twin.retention.sweep({ signal: kill.signal }).catch(() => undefined);
      if (outcome)
        deleted.push(
          ...outcome.deleted.filter((t) => t.tenant_id === tenant).map((t) => `${t.parent_id}/${t.version_number}`),
        );
    }
    const concurrent = await Promise.all([env.twin.retention.sweep(), env.twin.retention.sweep()]);
    for (const outcome of concurrent)
      deleted.push(
        ...outcome.deleted.filter((t) => t.tenant_id === tenant).map((t) => `${t.parent_id}/${t.version_number}`),
      );
    expect(new Set(deleted).size).toBe(deleted.length);

    const [four, three] = tables as [number, number];
    for (const [tableId, newest] of [
      [four, 4],
      [three, 3],
    ] as const) {
      for (let version = 1; version < newest; version += 1) {
        expect(await versionStatus(api, tableId, version)).toBe(404);
        expect(await dataBucketKeys(`${tenant}/tables/${tableId}/v${version}/`)).toEqual([]);
      }
      expect(await versionStatus(api, tableId, newest)).toBe(200);
      expect(await dataBucketKeys(`${tenant}/tables/${tableId}/v${newest}/`)).not.toEqual([]);
    }
  });
});
