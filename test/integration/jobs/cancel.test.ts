/**
 * Cancelling a running job, for every kind a user starts (docs/decisions.md, "Cancelling a
 * job"): each job is held on a read of its input (the S3 gate), cancelled twice at once, and
 * then its worker must have stopped within seconds, its execution read ABORTED (10-444) and
 * stay so, nothing it wrote be visible, its CPU time be counted, and reading its output
 * answer 10-444. One twin for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { importJob, schemaAnalysisJob } from '../../../shared/data-tables/jobs';
import type { ApiClient } from '../../support/api-client';
import { listKeys } from '../../support/exports';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importAndWait,
  putObjects,
  startImport,
  tableOver,
  waitForJob,
} from '../../support/imports';
import {
  cancelTwice,
  cpuSecondsToday,
  expectAborted,
  expectStopped,
  startGatedTwin,
  type GatedTwin,
} from './cancel-support';

const TENANT = 'cancel-jobs';
const CSV = 'id,name,amount\n1,ada,10\n2,bob,20\n3,cy,30\n';

let stack: GatedTwin;
let api: ApiClient;

beforeAll(async () => {
  stack = await startGatedTwin();
  api = await stack.env.clientFor(TENANT, ['admin']);
});
afterAll(async () => {
  await stack?.close();
});

const versionOf = (tableId: number, versionNumber = 1) => ({ data_table_id: tableId, version_number: versionNumber });

/** A table whose one version imported `CSV` (COMPLETED). */
async function importedTable(folder: string): Promise<number> {
  await putObjects(stack.env, 'landing', { [`${folder}/data.csv`]: CSV });
  const tableId = await tableOver(api, stack.env, `landing/${folder}/`);
  expect((await importAndWait(api, tableId)).execution.status).toBe('COMPLETED');
  return tableId;
}

describe('cancelling an import', () => {
  it('ends it ABORTED, stops its worker, keeps no data and counts its CPU; a retry answers the same', async () => {
    const { env, gate } = stack;
    await putObjects(env, 'landing', { 'cancel-import/data.csv': CSV });
    // The source is read through the gate, which holds the read: a slow source.
    const connectionId = await createObjectStoreConnection(api, env, { endpoint: gate.endpoint });
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/cancel-import/'));
    const held = gate.holdRead('/cancel-import/data.csv');
    const cpuBefore = await cpuSecondsToday(env, TENANT);
    const versionNumber = await startImport(api, tableId);
    await held.arrived;
    const params = versionOf(tableId, versionNumber);

    const cancelled = await cancelTwice(
      () => api.call('cancelDataVersionImport', { params }),
      (version) => version.execution.status,
    );
    expect(cancelled.execution.error?.code).toBe('10-444');
    expect(cancelled.execution.ended_date).not.toBeNull();
    await expectStopped(env, held, importJob, cancelled.execution.job_id);

    // Still ABORTED once the worker stopped: its failure path did not make it FAILED.
    const version = await api.call('getDataVersion', { params });
    expect(version.body.execution).toMatchObject({ status: 'ABORTED', error: { code: '10-444' } });
    const listed = await api.call('listDataVersions', { params: { data_table_id: tableId } });
    expect(listed.body.items.map((item) => item.execution.status)).toEqual(['ABORTED']);
    expect(
      (await api.call('getDataTable', { params: { data_table_id: tableId } })).body.latest_data_version,
    ).toMatchObject({ execution: { status: 'ABORTED' } });
    expectAborted(await api.call('previewDataVersion', { params }));
    expectAborted(await api.call('sampleDataVersion', { params, query: {} }));
    expectAborted(await api.call('analyseDataVersionSchema', { params, body: { depth: 'SHALLOW' } }));
    expect(await listKeys(env, DATA_BUCKET, `${TENANT}/tables/${tableId}/`)).toEqual([]);
    expect(await cpuSecondsToday(env, TENANT)).toBeGreaterThan(cpuBefore);

    // A retried cancel answers as the first; the table takes a new import at once.
    const again = await api.call('cancelDataVersionImport', { params });
    expect(again.status).toBe(200);
    expect(again.body.execution).toEqual(version.body.execution);
    expect(await startImport(api, tableId)).toBe(versionNumber + 1);
  });

  it('refuses to cancel an import that completed: 10-400 naming its status', async () => {
    const tableId = await importedTable('cancel-completed');
    const refused = await api.call('cancelDataVersionImport', { params: versionOf(tableId) });
    expect(refused.status).toBe(400);
    expect(refused.problem.code).toBe('10-400');
    expect(refused.problem.extraDetails).toMatchObject({ status: 'COMPLETED' });
    expect((await api.call('getDataVersion', { params: versionOf(tableId) })).body.execution.status).toBe('COMPLETED');
  });

  it('is 10-404 for a version of another tenant', async () => {
    const tableId = await importedTable('cancel-other-tenant');
    const stranger = await stack.env.clientFor('cancel-stranger', ['admin']);
    const refused = await stranger.call('cancelDataVersionImport', { params: versionOf(tableId) });
    expect(refused.status).toBe(404);
  });
});

describe('cancelling a schema analysis of a data version', () => {
  it('ends it ABORTED, stops its worker, and its result answers 10-444 while none succeeded', async () => {
    const { env, gate } = stack;
    const tableId = await importedTable('cancel-analysis');
    const params = versionOf(tableId);
    const held = gate.holdRead(`/${TENANT}/tables/${tableId}/v1/data.parquet`);
    const started = await api.call('analyseDataVersionSchema', { params, body: { depth: 'FULL' } });
    expect(started.status, started.text).toBe(202);
    await held.arrived;

    const cancelled = await cancelTwice(
      () => api.call('cancelSchemaAnalysis', { params }),
      (status) => status.execution.status,
    );
    await expectStopped(env, held, schemaAnalysisJob, cancelled.execution.job_id);
    const status = await api.call('getSchemaAnalysisStatus', { params });
    expect(status.body).toMatchObject({ execution: { status: 'ABORTED', error: { code: '10-444' } } });
    expect(status.body.depth).toBeUndefined();
    expectAborted(await api.call('getSchemaAnalysisResult', { params }));
    expect(await listKeys(env, DATA_BUCKET, `${TENANT}/tables/${tableId}/v1/analysis`)).toEqual([]);

    // The version itself is untouched, and a new analysis may start.
    expect((await api.call('getDataVersion', { params })).body.execution.status).toBe('COMPLETED');
    const next = await api.call('analyseDataVersionSchema', { params, body: { depth: 'SHALLOW' } });
    expect(next.status, next.text).toBe(202);
    const done = await waitForJob(
      () => api.call('getSchemaAnalysisStatus', { params }),
      (body) => body.execution,
    );
    expect(done.execution.status).toBe('COMPLETED');
    expect((await api.call('cancelSchemaAnalysis', { params })).problem.code).toBe('10-400');
  });
});
