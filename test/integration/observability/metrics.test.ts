/**
 * The metric lines the functions write (docs/operations.md), read from the twin's metrics file
 * where deployed functions write them to their logs: a request's route metrics, a refusal's
 * problem by family, an import's job metrics, a connector call's, a schedule tick's and the
 * twin's sweep, with their names, dimensions and values.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as tick } from '../../../functions/schedules/tick';
import { TOGGLE_CACHE_MS } from '../../../shared/features/store';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createObjectStoreConnection, putObjects, tableOver, importAndWait } from '../../support/imports';
import { linesWith, metricsOf, type EmfLine } from '../../support/metric-lines';

const BUCKET = 'metrics-source';

let env: TestTwin;
/** An OpenLineage endpoint that refuses every event. */
let lineage: Server;

beforeAll(async () => {
  lineage = createServer((_, response) => response.writeHead(503).end());
  await new Promise<void>((resolve) => lineage.listen(0, '127.0.0.1', resolve));
  const { port } = lineage.address() as AddressInfo;
  env = await startTestTwin({ buckets: [BUCKET], openLineageUrl: `http://127.0.0.1:${port}/lineage` });
});
afterAll(async () => {
  await env?.close();
  lineage?.close();
});

/** Turns a toggle on for the twin's tenant, and waits out the toggles' cache. */
async function toggleOn(toggle: string): Promise<void> {
  const response = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: toggle, tenant_id: 'local' },
    body: { strategy: 'on' },
  });
  expect(response.status, response.text).toBeLessThan(300);
  await new Promise((resolve) => setTimeout(resolve, TOGGLE_CACHE_MS + 100));
}

/** Waits (bounded) until `count` lines have metric `name` and these properties. */
async function eventually(name: string, properties: Readonly<Record<string, unknown>>, count: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = linesWith(env.twin.metricsFile, name, properties);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The one line that has metric `name` and the given properties. */
function lineWith(name: string, properties: Readonly<Record<string, unknown>>): EmfLine {
  const found = linesWith(env.twin.metricsFile, name, properties);
  expect(found, `lines with ${name} and ${JSON.stringify(properties)}`).toHaveLength(1);
  return found[0]!;
}

describe('metric lines', () => {
  it('a request writes its route’s count, latency and problem flags, with its tenant and trace id as properties', async () => {
    const response = await env.admin.call('listConnections', {});
    expect(response.status).toBe(200);
    const traceId = response.headers.get('x-trace-id');
    const line = lineWith('Requests', { trace_id: traceId });
    expect(line._aws.CloudWatchMetrics[0]!.Namespace).toBe('DataPreparation/local');
    expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'operation']]);
    expect(metricsOf(line)).toEqual({
      Requests: 'Count',
      Latency: 'Milliseconds',
      Problems: 'Count',
      ServerErrors: 'Count',
    });
    expect(line).toMatchObject({
      service: 'data-preparation',
      operation: 'listConnections',
      tenant_id: 'local',
      status: '200',
      Requests: 1,
      Problems: 0,
      ServerErrors: 0,
    });
    expect(line.Latency).toBeGreaterThan(0);
    expect(line.code).toBeUndefined();
  });

  it('a refused request counts a problem, and one by its code’s family', async () => {
    const response = await env.admin.call('getConnection', { params: { connection_id: 987_654 } });
    expect(response.problem.code).toBe('10-404');
    const traceId = response.headers.get('x-trace-id');
    expect(lineWith('Requests', { trace_id: traceId })).toMatchObject({
      operation: 'getConnection',
      code: '10-404',
      status: '404',
      Problems: 1,
      ServerErrors: 0,
    });
    const family = lineWith('ProblemsByFamily', { trace_id: traceId });
    expect(family._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'family']]);
    expect(family).toMatchObject({ family: '10', operation: 'getConnection', tenant_id: 'local', ProblemsByFamily: 1 });
  });

  it('an import writes its start, its duration, rows, bytes and CPU where it ran, and its outcome', async () => {
    await putObjects(env, BUCKET, { 'people.csv': 'id,name\n1,ada\n2,grace\n3,edsger\n' });
    const tableId = await tableOver(env.admin, env, `${BUCKET}/people.csv`);
    const version = await importAndWait(env.admin, tableId);
    expect(version.execution.status).toBe('COMPLETED');
    const jobId = version.execution.job_id;

    const start = lineWith('JobStarts', { job_id: jobId });
    expect(start._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'job', 'ran_on']]);
    expect(start).toMatchObject({ job: 'import', ran_on: 'lambda', tenant_id: 'local', JobStarts: 1 });

    const end = lineWith('JobDuration', { job_id: jobId });
    expect(end._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'job', 'ran_on']]);
    expect(metricsOf(end)).toEqual({
      JobDuration: 'Milliseconds',
      JobCpuSeconds: 'Seconds',
      JobRows: 'Count',
      JobBytes: 'Bytes',
    });
    expect(end).toMatchObject({ job: 'import', ran_on: 'lambda', tenant_id: 'local', JobRows: 3 });
    expect(end.JobBytes).toBe(version.execution.progress.bytes_read);
    expect(end.JobCpuSeconds).toBe(version.execution.progress.cpu_seconds);
    expect(end.JobDuration).toBeGreaterThan(0);

    const outcome = lineWith('JobOutcomes', { job_id: jobId });
    expect(outcome._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'job', 'outcome']]);
    expect(outcome).toMatchObject({ job: 'import', outcome: 'completed', JobOutcomes: 1 });
  });

  it('a call through a connector writes its count and latency by connector and outcome, with the request’s tenant and trace id', async () => {
    const connectionId = await createObjectStoreConnection(env.admin, env);
    const test = (body: { type: 'object_store'; path_restriction?: string }) =>
      env.admin.call('testStoredConnection', { params: { connection_id: connectionId }, body });

    const passed = await test({ type: 'object_store' });
    expect(passed.status, passed.text).toBeLessThan(300);
    const ok = lineWith('ConnectorCalls', { trace_id: passed.headers.get('x-trace-id') });
    expect(ok._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'connector', 'outcome']]);
    expect(metricsOf(ok)).toEqual({ ConnectorCalls: 'Count', ConnectorLatency: 'Milliseconds' });
    expect(ok).toMatchObject({
      connector: 'object_store',
      outcome: 'ok',
      call: 'test',
      tenant_id: 'local',
      ConnectorCalls: 1,
    });
    expect(ok.code).toBeUndefined();

    // A bucket the store does not have: the connector's own code, its family the outcome.
    const failed = await test({ type: 'object_store', path_restriction: 'no-such-bucket' });
    const code = failed.problem.code;
    expect(code).toMatch(/^30-/);
    expect(lineWith('ConnectorCalls', { trace_id: failed.headers.get('x-trace-id') })).toMatchObject({
      connector: 'object_store',
      outcome: '30',
      code,
      ConnectorCalls: 1,
    });
  });

  it('a schedule’s tick writes its outcome: ignored when its schedule is gone, a refusal by its code’s family', async () => {
    await tick({ tenant_id: 'local', schedule_id: 987_654, cause: 'queued' });
    const ignored = lineWith('ScheduleTicks', { schedule_id: '987654' });
    expect(ignored._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'outcome']]);
    expect(ignored).toMatchObject({ outcome: 'ignored', tenant_id: 'local', cause: 'queued', ScheduleTicks: 1 });

    await toggleOn('schedules');
    const dataset = await env.admin.call('createDataset', { body: { name: 'scheduled-unreleased' } });
    expect(dataset.status, dataset.text).toBe(201);
    // Once a year, never due while the test runs: the tick below is the test's own.
    const schedule = await env.admin.call('createSchedule', {
      body: {
        name: 'released-only',
        dataset_id: dataset.body.id,
        graph_version: 'released',
        trigger: { type: 'cron', expression: '0 3 1 1 *', time_zone: 'UTC' },
      },
    });
    expect(schedule.status, schedule.text).toBe(201);
    await tick({
      tenant_id: 'local',
      schedule_id: schedule.body.id,
      lock_version: schedule.body.lock_version,
      cause: 'cron',
    });
    // No version of the dataset is released: the history says REFUSED 10-404, the metric its family.
    const runs = await env.admin.call('listScheduleRuns', { params: { schedule_id: schedule.body.id } });
    expect(runs.body.items.map((run) => [run.outcome, run.code])).toEqual([['REFUSED', '10-404']]);
    expect(lineWith('ScheduleTicks', { schedule_id: String(schedule.body.id) })).toMatchObject({
      outcome: '10',
      code: '10-404',
      cause: 'cron',
      tenant_id: 'local',
    });
  });

  it('the twin’s sweep writes a run with what it deleted, as a deployed sweep invocation does', async () => {
    const result = await env.twin.retention.sweep();
    const line = lineWith('SweepRuns', { sweep_id: result.sweep_id });
    expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(line).toMatchObject({ SweepRuns: 1, SweepDeleted: result.deleted.length, SweepFailed: result.failed });
  });

  it('a job’s connector calls name its tenant and job; a lost OpenLineage event counts a delivery failure', async () => {
    await toggleOn('openlineage');
    await putObjects(env, BUCKET, { 'lineage.csv': 'id\n1\n' });
    const tableId = await tableOver(env.admin, env, `${BUCKET}/lineage.csv`);
    const version = await importAndWait(env.admin, tableId);
    expect(version.execution.status).toBe('COMPLETED');
    const jobId = version.execution.job_id;

    // The import read its source through the connector, inside its job.
    expect(lineWith('ConnectorCalls', { job_id: jobId })).toMatchObject({
      connector: 'object_store',
      outcome: 'ok',
      call: 'read',
      tenant_id: 'local',
    });
    // START and COMPLETE, each refused on every try.
    const lost = await eventually('LineageDeliveryFailed', { job_id: jobId }, 2);
    expect(lost.map((line) => line.event_type).sort()).toEqual(['COMPLETE', 'START']);
    for (const line of lost) {
      expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
      expect(line).toMatchObject({ LineageDelivered: 0, LineageDeliveryFailed: 1, tenant_id: 'local', job: 'import' });
    }
  });
});
