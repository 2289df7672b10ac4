/**
 * The metric lines the functions write (docs/operations.md), read from the twin's metrics file
 * where deployed functions write them to their logs: a request's route metrics, a refusal's
 * problem by family, and an import's job metrics, with their names, dimensions and values.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects, tableOver, importAndWait } from '../../support/imports';

const BUCKET = 'metrics-source';

/** One EMF line: its metric directive, and its values and properties. */
const EmfLine = z.looseObject({
  _aws: z.object({
    Timestamp: z.number(),
    CloudWatchMetrics: z.array(
      z.object({
        Namespace: z.string(),
        Dimensions: z.array(z.array(z.string())),
        Metrics: z.array(z.object({ Name: z.string(), Unit: z.string() })),
      }),
    ),
  }),
});
type EmfLine = z.infer<typeof EmfLine>;

let env: TestTwin;

beforeAll(async () => {
  env = await startTestTwin({ buckets: [BUCKET] });
});
afterAll(() => env?.close());

function lines(): EmfLine[] {
  return readFileSync(env.twin.metricsFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => EmfLine.parse(JSON.parse(line)));
}

/** The one line that has metric `name` and the given properties. */
function lineWith(name: string, properties: Readonly<Record<string, unknown>>): EmfLine {
  const found = lines().filter(
    (line) =>
      line._aws.CloudWatchMetrics[0]!.Metrics.some((metric) => metric.Name === name) &&
      Object.entries(properties).every(([key, value]) => line[key] === value),
  );
  expect(found, `lines with ${name} and ${JSON.stringify(properties)}`).toHaveLength(1);
  return found[0]!;
}

const metricsOf = (line: EmfLine) =>
  Object.fromEntries(line._aws.CloudWatchMetrics[0]!.Metrics.map((metric) => [metric.Name, metric.Unit]));

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
});
