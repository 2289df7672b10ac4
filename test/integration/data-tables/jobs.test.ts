/**
 * The job mechanism around the import worker, through the real state machine: transient
 * failures retried with backoff, an unexpected exception recorded as 10-500, a step timeout
 * and a source that stops sending data recorded as 10-1047. The worker is the real one,
 * wrapped per table to misbehave on purpose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataVersions, importJobRef } from '../../../shared/data-tables/versions';
import { markCompleted, markFailed, markRunning } from '../../../shared/jobs/status';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { AppError } from '../../../shared/errors/app-error';
import { jobFailureOf } from '../../../shared/jobs/failure';
import { hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importAndWait, importCompleted, putObjects, tableOver } from '../../support/imports';
import { lastSignOfLifeAnHourAgo } from '../../support/abandoned-job';

type Misbehaviour = 'transient-once' | 'throw' | 'hang' | 'killed-at-timeout' | 'out-of-memory';

/** How Step Functions reports a Lambda that died without answering (its runtime killed it). */
const lambdaDied = (cause: string) => Object.assign(new Error(cause), { name: 'Lambda.Unknown' });

const misbehaviours = new Map<number, Misbehaviour>();
const attempts = new Map<number, number>();

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== 'import-data-version') return handler;
  return async (input, context) => {
    const tableId = (input as { params: { data_table_id: number } }).params.data_table_id;
    const attempt = (attempts.get(tableId) ?? 0) + 1;
    attempts.set(tableId, attempt);
    switch (misbehaviours.get(tableId)) {
      case 'throw':
        throw new TypeError('boom: something nobody expected');
      case 'hang':
        return new Promise(() => undefined);
      case 'killed-at-timeout':
        throw lambdaDied('RequestId: 7f0c Error: Task timed out after 900.00 seconds');
      case 'out-of-memory':
        throw lambdaDied('RequestId: 7f0c Error: Runtime exited with error: signal: killed Runtime.ExitError');
      case 'transient-once':
        if (attempt === 1) throw jobFailureOf(new AppError('30-1110'));
        break;
      default:
    }
    return handler(input, context);
  };
}

let env: TestTwin;
let api: ApiClient;
let hanging: FakeEndpoint;

beforeAll(async () => {
  hanging = await hangingEndpoint();
  env = await startTestTwin({
    buckets: ['landing'],
    loadWorker,
    retryIntervalMs: 10,
    taskTimeoutSeconds: 3,
    allowOutbound: [`127.0.0.1:${hanging.port}`],
    // Short enough for the silent-source test, long enough that a normal import on a loaded machine is not taken for silent.
    environment: { JOB_INACTIVITY_SECONDS: '3' },
  });
  api = env.admin;
  await putObjects(env, 'landing', { 'jobs/a.csv': 'k,v\n1,one\n2,two\n' });
});

afterAll(async () => {
  await env?.close();
  await hanging?.close();
});

async function tableMisbehaving(misbehaviour?: Misbehaviour): Promise<number> {
  const tableId = await tableOver(api, env, 'landing/jobs/');
  if (misbehaviour) misbehaviours.set(tableId, misbehaviour);
  return tableId;
}

describe('the import job', () => {
  it('retries a transient failure and completes', async () => {
    const tableId = await tableMisbehaving('transient-once');
    const version = await importAndWait(api, tableId);
    expect(version.execution.status).toBe('COMPLETED');
    expect(version.metadata?.row_count).toBe(2);
    expect(attempts.get(tableId)).toBe(2);
  });

  it('records a crash of the worker as 10-500 without its error or its name, and frees the table', async () => {
    const tableId = await tableMisbehaving('throw');
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-500' } });
    // Neither the error's text nor the runtime's name for it reaches the user.
    expect(JSON.stringify(version)).not.toMatch(/boom|TypeError/);
    expect(attempts.get(tableId)).toBe(1);
    misbehaviours.delete(tableId);
    await importCompleted(api, tableId);
  });

  it('fails a step that runs past its timeout with 10-1047', async () => {
    const tableId = await tableMisbehaving('hang');
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });
  });

  it('a worker Lambda killed at its timeout or out of memory ends the job FAILED at once (10-1047, 10-500), without retries, and frees the table', async () => {
    const killed = await tableMisbehaving('killed-at-timeout');
    const oom = await tableMisbehaving('out-of-memory');
    const [timedOut, outOfMemory] = await Promise.all([importAndWait(api, killed), importAndWait(api, oom)]);
    expect(timedOut.execution).toMatchObject({
      status: 'FAILED',
      error: {
        code: '10-1047',
        message: expect.stringContaining('time limit'),
        cause: expect.stringMatching(/^time limit/),
      },
    });
    expect(outOfMemory.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '10-500', message: expect.stringContaining('out of memory') },
    });
    expect(JSON.stringify(outOfMemory)).not.toContain('RequestId');
    expect([attempts.get(killed), attempts.get(oom)]).toEqual([1, 1]);
    misbehaviours.delete(oom);
    await importCompleted(api, oom);
  });

  it('stops an import whose source stops sending data with 10-1047', async () => {
    const tableId = await tableOver(api, env, 'landing/jobs/', { endpoint: hanging.endpoint });
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });
  });
});

describe('status writes', () => {
  it('a job that was failed cannot be completed or restarted by a late worker', async () => {
    const tableId = await tableOver(api, env, 'landing/jobs/');
    // A creation whose state machine never started: only the status writes act on it.
    const { version, job } = await dataVersions.begin('local', { id: 'test' }, tableId);
    await markRunning(job, { stage: 'READING', percent: 10 });
    expect(await markFailed(job, { code: '30-1110', message: 'Object-storage operation timed out' })).toBe(true);
    expect(await markFailed(job, { code: '10-500', message: 'again' })).toBe(false);
    await expect(markCompleted(job, { stage: 'DONE', percent: 100 }, {})).rejects.toMatchObject({
      name: 'Job.Superseded',
    });
    await expect(markRunning(job, { stage: 'READING', percent: 0 })).rejects.toMatchObject({ name: 'Job.Superseded' });
    const stored = (
      await api.call('getDataVersion', { params: { data_table_id: tableId, version_number: version.version_number } })
    ).body;
    expect(stored.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1110' } });
    // The failure released the table: the next import starts.
    await importCompleted(api, tableId);
  });

  it('a creation whose worker went silent reads as FAILED 10-1047 and is taken over by the next import', async () => {
    const tableId = await tableOver(api, env, 'landing/jobs/');
    const { version, job } = await dataVersions.begin('local', { id: 'test' }, tableId);
    const read = async () =>
      (await api.call('getDataVersion', { params: { data_table_id: tableId, version_number: version.version_number } }))
        .body;
    expect((await read()).execution.status).toBe('PENDING');
    expect(
      (await api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } })).body.results[0]?.error?.code,
    ).toBe('20-1029');

    // The worker's last sign of life was an hour ago.
    await lastSignOfLifeAnHourAgo(job.subject);
    expect((await read()).execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });

    const next = await importAndWait(api, tableId);
    expect(next).toMatchObject({ version_number: version.version_number + 1, execution: { status: 'COMPLETED' } });
    expect((await read()).execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });
    // The stale job can no longer write.
    await expect(
      markRunning(importJobRef('local', tableId, version.version_number, job.job_id), { stage: 'READING', percent: 1 }),
    ).rejects.toMatchObject({
      name: 'Job.Superseded',
    });
  });
});
