/**
 * The job mechanism around the import worker, through the real state machine: transient
 * failures retried with backoff, an unexpected exception recorded as 10-500, a step timeout
 * and a source that stops sending data recorded as 10-1047. The worker is the real one,
 * wrapped per table to misbehave on purpose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerSpec } from '../../../functions/workers';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { AppError } from '../../../shared/errors/app-error';
import { jobFailureOf } from '../../../shared/jobs/failure';
import { hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import { startTestTwin, type ApiClient, type TestTwin } from '../../support/harness';
import { importAndWait, putObjects, tableOver } from '../../support/imports';

type Misbehaviour = 'transient-once' | 'throw' | 'hang';

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
    environment: { JOB_INACTIVITY_SECONDS: '1' },
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
    expect(version.metadata.row_count).toBe(2);
    expect(attempts.get(tableId)).toBe(2);
  });

  it('records a crash of the worker as 10-500 naming the error type only, and frees the table', async () => {
    const tableId = await tableMisbehaving('throw');
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-500', cause: 'TypeError' } });
    expect(JSON.stringify(version)).not.toContain('boom');
    expect(attempts.get(tableId)).toBe(1);
    misbehaviours.delete(tableId);
    expect((await importAndWait(api, tableId)).execution.status).toBe('COMPLETED');
  });

  it('fails a step that runs past its timeout with 10-1047', async () => {
    const tableId = await tableMisbehaving('hang');
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });
  });

  it('stops an import whose source stops sending data with 10-1047', async () => {
    const tableId = await tableOver(api, env, 'landing/jobs/', { endpoint: hanging.endpoint });
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1047' } });
  });
});
