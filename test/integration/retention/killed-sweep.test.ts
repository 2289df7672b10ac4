/**
 * A retention sweep process killed half-way (docs/retention.md): `npm run sweep`'s entry runs
 * as a child process against this file's twin, its S3 traffic through a relay that holds its
 * second DeleteObjects, so it is SIGKILLed with one version fully deleted and the next one's
 * item gone but its files still in the data bucket. A second sweep process then finishes: every
 * expired item and object is deleted exactly once, no file is left without its item, and
 * nothing else in the data bucket is touched.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeEndpointsFile } from '../../../infra/local/endpoints-file';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { DATA_BUCKET, TABLE_NAME } from '../../../infra/local/twin';
import { deletions } from '../../../shared/retention/deletions';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
} from '../../support/imports';
import { startS3Gate, type S3Gate } from '../../support/s3-gate';
import { localS3Client } from '../../support/local-s3';

const TENANT = 'retention-killed';
const DAY_MS = 86_400_000;
/** Bounds each sweep process (start-up included) so a hung one fails the test instead of stalling it. */
const PROCESS_LIMIT_MS = 60_000;

let env: TestTwin;
let gate: S3Gate;
let dataDir: string;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  await putObjects(env, 'landing', { 'sales/a.csv': 'id,amount\n1,10\n2,20\n' });
  gate = await startS3Gate(env.twin.s3.endpoint);
  // What `npm start` writes for `npm run sweep` to find the stack; its S3 is the relay.
  dataDir = mkdtempSync(join(tmpdir(), 'killed-sweep-'));
  writeEndpointsFile(dataDir, {
    pid: process.pid,
    api: env.twin.apiUrl,
    apiReference: env.twin.apiUrl,
    openApi: env.twin.apiUrl,
    s3: gate.endpoint,
    dynamodb: env.twin.endpoints.dynamodb,
    kms: env.twin.endpoints.kms,
    stepFunctions: env.twin.endpoints.stepFunctions,
    scheduler: env.twin.endpoints.scheduler,
    ecs: env.twin.endpoints.ecs,
    deltaSharing: env.twin.apiUrl,
    pricingDim: env.twin.apiUrl,
    pricingTokenUrl: env.twin.apiUrl,
    region: 'us-east-1',
    accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId,
    secretAccessKey: LOCAL_S3_CREDENTIALS.secretAccessKey,
    tableName: TABLE_NAME,
    dataBucket: DATA_BUCKET,
  });
});
afterAll(async () => {
  await gate?.close();
  await env?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface SweepProcess {
  kill(): void;
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** `npm run sweep -- --data-dir <dir> --at <asOf>`, as one Node.js process (tsx's loader, not its CLI's extra child). */
function sweepProcess(asOf: Date): SweepProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/scripts/sweep.ts', '--data-dir', dataDir, '--at', asOf.toISOString()],
    { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' } },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), PROCESS_LIMIT_MS);
  return {
    kill: () => child.kill('SIGKILL'),
    ended: new Promise((resolve) =>
      child.on('close', (code, signal) => {
        clearTimeout(limit);
        resolve({ code, signal, output });
      }),
    ),
  };
}

async function dataBucketKeys(): Promise<string[]> {
  const s3 = localS3Client(env.twin.s3.endpoint);
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return keys.sort();
  } finally {
    s3.destroy();
  }
}

async function retentionTenant(): Promise<ApiClient> {
  // The client first: it makes the tenant, and only a registered tenant has overrides (50-1003).
  const api = await env.clientFor(TENANT, ['admin']);
  const override = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'retention', tenant_id: TENANT },
    body: { strategy: 'on' },
  });
  expect(override.status, override.text).toBe(200);
  return api;
}

const thingKey = (thing: { subject: string; parent_id: number; version_number: number }) =>
  `${thing.subject}/${thing.parent_id}/${thing.version_number}`;

it('a sweep process killed half-way is finished by the next: each expired thing deleted once, no orphan, nothing else touched', async () => {
  const api = await retentionTenant();
  const connectionId = await createObjectStoreConnection(api, env);
  const tables: number[] = [];
  for (let table = 0; table < 2; table += 1) {
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/sales/'));
    for (let version = 0; version < 3; version += 1) await importAndWait(api, tableId);
    tables.push(tableId);
  }
  const datasetId = (await api.call('createDataset', { body: { name: 'killed-sweep-graph' } })).body.id;
  // Graph version 1 reads the newest version of a table; version 2 copies it, and 1 expires.
  const node = await api.call('addDatasetNode', {
    params: { dataset_id: datasetId, version_number: 1 },
    body: { dataset_id: datasetId, node_type: 'TABLE', data_table_id: tables[0]!, data_table_version_number: 3 },
  });
  expect(node.status, node.text).toBe(201);
  const copy = await api.call('createDatasetVersion', {
    params: { dataset_id: datasetId },
    body: { dataset_id: datasetId, source_transformation_graph_version_number: 1 },
  });
  expect(copy.status, copy.text).toBe(201);
  const policy = await api.call('putRetentionPolicy', {
    body: { enabled: true, rule: { threshold_days: 1 }, lock_version: 0 },
  });
  expect(policy.status, policy.text).toBe(200);

  const asOf = new Date(Date.now() + 2 * DAY_MS);
  const preview = (await api.call('previewRetentionSweep', { query: { as_of: asOf.toISOString() } })).body;
  const expired = [
    ...preview.data_versions.map((v) => ({
      subject: 'DATA_VERSION',
      parent_id: v.data_table_id,
      version_number: v.version_number,
    })),
    ...preview.transformation_graphs.map((g) => ({
      subject: 'TRANSFORMATION_GRAPH',
      parent_id: g.dataset_id,
      version_number: g.version_number,
    })),
  ];
  // Versions 1 and 2 of each table (3 is the newest COMPLETED), graph version 1 (2 is the newest).
  expect(expired.map(thingKey).sort()).toEqual(
    [
      ...tables.flatMap((id) => [`DATA_VERSION/${id}/1`, `DATA_VERSION/${id}/2`]),
      `TRANSFORMATION_GRAPH/${datasetId}/1`,
    ].sort(),
  );
  const filesOf = (keys: readonly string[], tableId: number, version: number) =>
    keys.filter((key) => key.startsWith(`${TENANT}/tables/${tableId}/v${version}/`));
  const before = await dataBucketKeys();
  const expiredFiles = tables.flatMap((id) => [...filesOf(before, id, 1), ...filesOf(before, id, 2)]).sort();
  for (const id of tables) expect(filesOf(before, id, 1)).not.toEqual([]);

  // The first sweep: killed while its second DeleteObjects is held, i.e. with one version done.
  const held = gate.holdDeletion(2);
  const first = sweepProcess(asOf);
  const heldKeys = await Promise.race([
    held,
    first.ended.then(({ code, output }) => {
      throw new Error(`the sweep ended (${code}) before its second deletion: ${output}`);
    }),
  ]);
  const doneAtKill = await deletions.done(TENANT);
  const pendingAtKill = await deletions.pending(TENANT);
  first.kill();
  expect((await first.ended).signal).toBe('SIGKILL');
  gate.dropHeld();
  expect(doneAtKill).toHaveLength(1);
  expect(pendingAtKill).toHaveLength(1);
  // The killed sweep's half-done deletion: its item is gone, its files are not.
  const [halfDone] = pendingAtKill as [(typeof pendingAtKill)[number]];
  const orphaned = await api.call('getDataVersion', {
    params: { data_table_id: halfDone.parent_id, version_number: halfDone.version_number },
  });
  expect(orphaned.status).toBe(404);
  const orphanFiles = filesOf(await dataBucketKeys(), halfDone.parent_id, halfDone.version_number);
  expect(orphanFiles).not.toEqual([]);
  expect(heldKeys.sort()).toEqual(orphanFiles);

  // The second sweep finishes the journal's pending deletion and the rest.
  const second = await sweepProcess(asOf).ended;
  expect(second.code, second.output).toBe(0);
  const report = JSON.parse(second.output) as {
    deleted: { tenant_id: string; subject: string; parent_id: number; version_number: number }[];
  };
  const secondDeleted = report.deleted.filter((thing) => thing.tenant_id === TENANT).map(thingKey);
  const deletedOnce = [...doneAtKill.map(thingKey), ...secondDeleted];
  expect(deletedOnce.sort()).toEqual(expired.map(thingKey).sort());
  expect(new Set(deletedOnce).size).toBe(deletedOnce.length);
  expect((await deletions.done(TENANT)).map(thingKey).sort()).toEqual(expired.map(thingKey).sort());
  expect(await deletions.pending(TENANT)).toEqual([]);

  // Objects: each expired file deleted by exactly one forwarded DeleteObjects; every other one still there.
  expect([...gate.deletedKeys].sort()).toEqual(expiredFiles);
  const after = await dataBucketKeys();
  expect(after).toEqual(before.filter((key) => !expiredFiles.includes(key)));
  for (const id of tables) {
    for (const version of [1, 2]) {
      const status = (await api.call('getDataVersion', { params: { data_table_id: id, version_number: version } }))
        .status;
      expect(status).toBe(404);
    }
    expect((await api.call('getDataVersion', { params: { data_table_id: id, version_number: 3 } })).status).toBe(200);
    expect(filesOf(after, id, 3)).not.toEqual([]);
  }
  const graphs = (await api.call('listDatasetVersions', { params: { dataset_id: datasetId } })).body.items;
  expect(graphs.map((graph) => graph.version_number)).toEqual([2]);
}, 180_000);
