/**
 * Schema analysis of recipe node outputs over HTTP: a run analyses its output (SHALLOW), a
 * FULL analysis of that output adds alerts, and each analysis belongs to the run whose output
 * it read; one analysis at a time (20-1065, parallel requests), none after FULL (20-1066),
 * none without a completed run or while a run rebuilds the node (20-1064), a run replacing
 * the output under a running analysis fails it (20-1028), FULL needs schema:analyze, and
 * another tenant sees nothing. Workers are the real ones, held per dataset where a test needs
 * a job to wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { nodeSchemaAnalysisJob } from '../../../shared/datasets/jobs';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import { excerpt } from '../../../shared/errors/app-error';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { JobSupersededError, markRunning } from '../../../shared/jobs/status';
import { nodeAnalyses, nodeAnalysisJobRef } from '../../../shared/datasets/node-analyses';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { waitForJob } from '../../support/imports';
import {
  CUSTOMERS_CSV,
  executeAndWait,
  importedTable,
  joinGraph,
  nodeAt,
  waitForRun,
  type JoinGraph,
} from './run-fixtures';

/** Jobs of these workers for these datasets wait until their gate opens. */
const gates = new Map<string, Promise<void>>();
const gateKey = (worker: string, datasetId: number) => `${worker}:${datasetId}`;

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  return async (input, context) => {
    await gates.get(gateKey(worker.name, (input as { params: { dataset_id: number } }).params.dataset_id));
    return handler(input, context);
  };
}

/** Holds the jobs of `worker` for `graph`'s dataset until the returned function is called. */
function hold(worker: WorkerSpec, graph: JoinGraph): () => void {
  let open = (): void => undefined;
  const key = gateKey(worker.name, graph.datasetId);
  gates.set(
    key,
    new Promise<void>((resolve) => {
      open = resolve;
    }),
  );
  return () => {
    open();
    gates.delete(key);
  };
}

let env: TestTwin;
let api: ApiClient;
let tables: { orders: number; customers: number };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], loadWorker });
  api = env.admin;
  // Every joined order has the same amount: a FULL analysis flags it CONSTANT.
  tables = {
    orders: await importedTable(api, env, 'id,customer_id,amount\n1,1,10\n2,2,10\n3,1,10\n4,3,10\n5,9,10\n'),
    customers: await importedTable(api, env, CUSTOMERS_CSV),
  };
});

afterAll(async () => {
  await env?.close();
});

type Depth = 'SHALLOW' | 'FULL';
const analyse = (graph: JoinGraph, depth: Depth, client = api) =>
  client.call('analyseDatasetNodeSchema', { params: nodeAt(graph, graph.join), body: { depth } });
const status = (graph: JoinGraph, jobId?: string, client = api) =>
  client.call('getDatasetNodeSchemaAnalysisStatus', {
    params: nodeAt(graph, graph.join),
    query: jobId === undefined ? {} : { job_id: jobId },
  });
const result = (graph: JoinGraph) =>
  api.call('getDatasetNodeSchemaAnalysisResult', { params: nodeAt(graph, graph.join) });
const alerts = (graph: JoinGraph) => api.call('getDatasetNodeSchemaAlerts', { params: nodeAt(graph, graph.join) });
const waitForAnalysis = (graph: JoinGraph, jobId: string) =>
  waitForJob(
    () => status(graph, jobId),
    (body) => body.execution,
    20_000,
  );

/** The join node run on samples, SUCCEEDED; answers the run's job id. */
async function ranJoin(graph: JoinGraph): Promise<string> {
  const run = await executeAndWait(api, graph, graph.join, true);
  expect(run.run_state, JSON.stringify(run.execution)).toBe('SUCCEEDED');
  return run.execution!.job_id;
}

describe('schema analysis of a recipe node', () => {
  it('before any run: 20-1026 for the status, result and alerts, 20-1064 for a start; 20-1014 on a TABLE node', async () => {
    const graph = await joinGraph(api, tables);
    for (const answer of [await status(graph), await result(graph), await alerts(graph)])
      expect([answer.status, answer.problem.code]).toEqual([404, '20-1026']);
    expect((await status(graph)).problem.detail).toContain(
      `dataset ${graph.datasetId} version 1 and recipe ${graph.join}`,
    );
    const refused = await analyse(graph, 'SHALLOW');
    expect([refused.status, refused.problem.code]).toEqual([400, '20-1064']);
    const onTable = await api.call('analyseDatasetNodeSchema', {
      params: nodeAt(graph, graph.orders),
      body: { depth: 'SHALLOW' },
    });
    expect([onTable.status, onTable.problem.code]).toEqual([400, '20-1014']);
  });

  it('a run analyses its output SHALLOW; FULL (schema:analyze) adds profiles and alerts; then 20-1066; a new run’s output starts SHALLOW again', async () => {
    const graph = await joinGraph(api, tables);
    const runId = await ranJoin(graph);
    expect((await status(graph)).body).toMatchObject({
      execution: { job_id: runId, status: 'COMPLETED' },
      depth: 'SHALLOW',
      requested_depth: 'SHALLOW',
      run_id: runId,
      use_sample: true,
    });
    const shallow = await result(graph);
    expect(shallow.body).toMatchObject({ depth: 'SHALLOW', row_count: 4, alerts: [] });
    expect(shallow.body.columns.map((column) => column.name)).toEqual(['id', 'amount', 'name']);
    expect([(await alerts(graph)).status, (await alerts(graph)).problem.code]).toEqual([404, '20-1062']);

    const editor = await env.clientFor('local', ['editor']);
    const forbidden = await analyse(graph, 'FULL', editor);
    expect([forbidden.status, forbidden.problem.code]).toEqual([403, '10-403']);

    const started = await analyse(graph, 'FULL');
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ requested_depth: 'FULL', depth: 'SHALLOW', run_id: runId, use_sample: true });
    const jobId = started.body.execution.job_id;
    expect(jobId).toMatch(/^node-schema-analysis-/);
    expect(await waitForAnalysis(graph, jobId)).toMatchObject({
      execution: { status: 'COMPLETED' },
      depth: 'FULL',
      run_id: runId,
    });
    expect((await status(graph)).body).toMatchObject({
      execution: { job_id: jobId },
      depth: 'FULL',
      requested_depth: 'FULL',
    });
    const full = await result(graph);
    expect(full.body).toMatchObject({ depth: 'FULL', row_count: 4 });
    expect(full.body.columns.find((column) => column.name === 'id')).toMatchObject({
      min: 1,
      max: 4,
      distinct_count: 4,
    });
    const flagged = await alerts(graph);
    expect(flagged.status, flagged.text).toBe(200);
    expect(flagged.body.alerts.map((alert) => `${alert.column}:${alert.type}`)).toContain('amount:CONSTANT');

    for (const depth of ['FULL', 'SHALLOW'] as const) {
      const again = await analyse(graph, depth);
      expect([again.status, again.problem.code]).toEqual([409, '20-1066']);
    }

    // The FULL analysis was of the previous run's output: the new output has its run's only.
    const rerun = await ranJoin(graph);
    expect((await status(graph)).body).toMatchObject({ execution: { job_id: rerun }, depth: 'SHALLOW', run_id: rerun });
    expect((await alerts(graph)).problem.code).toBe('20-1062');
    expect((await status(graph, 'no-such-job')).problem.code).toBe('20-1015');
  });

  it('parallel requests start exactly one analysis (20-1065)', async () => {
    const graph = await joinGraph(api, tables);
    await ranJoin(graph);
    const release = hold(nodeSchemaAnalysisJob.worker, graph);
    const responses = await Promise.all(Array.from({ length: 6 }, () => analyse(graph, 'SHALLOW')));
    release();
    const started = responses.filter((response) => response.status === 202);
    expect(started).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 202))
      expect([refused.status, refused.problem.code]).toEqual([409, '20-1065']);
    expect((await waitForAnalysis(graph, started[0]!.body.execution.job_id)).execution.status).toBe('COMPLETED');
  });

  it('a live run of the node refuses a start (20-1064); a run replacing the output under a running analysis fails it (20-1028)', async () => {
    const graph = await joinGraph(api, tables);
    const releaseRun = hold(recipeRunJob.worker, graph);
    expect(
      (await api.call('executeDatasetNode', { params: nodeAt(graph, graph.join), body: { use_sample: true } })).status,
    ).toBe(202);
    // The first run is queued: no output yet, its result is not ready.
    expect((await result(graph)).problem.code).toBe('20-1027');
    expect((await analyse(graph, 'SHALLOW')).problem.code).toBe('20-1064');
    releaseRun();
    const firstRun = (await waitForRun(api, graph, graph.join)).execution!.job_id;

    const releaseAnalysis = hold(nodeSchemaAnalysisJob.worker, graph);
    const started = await analyse(graph, 'FULL');
    expect(started.status, started.text).toBe(202);
    const secondRun = await ranJoin(graph);
    releaseAnalysis();
    const failed = await waitForAnalysis(graph, started.body.execution.job_id);
    expect(failed.execution).toMatchObject({ status: 'FAILED', error: { code: '20-1028' } });
    // Ids are quoted as excerpts in messages.
    expect(failed.execution.error?.message).toBe(
      `Recipe execution with ID ${excerpt(firstRun)} for schema analysis is missing`,
    );
    // The node's output is the second run's, analysed by that run only.
    expect((await status(graph)).body).toMatchObject({
      execution: { job_id: secondRun },
      depth: 'SHALLOW',
      run_id: secondRun,
    });
    expect((await result(graph)).body.depth).toBe('SHALLOW');
  });

  it('a failed run leaves no output: the result names it (20-1028), a start is 20-1064', async () => {
    const graph = await joinGraph(api, tables, {
      join: 'SELECT o.nosuch FROM orders o JOIN customers c ON c.id = o.customer_id',
    });
    const run = await executeAndWait(api, graph, graph.join, true);
    expect(run.run_state).toBe('FAILED');
    expect((await status(graph)).body).toMatchObject({
      execution: { job_id: run.execution!.job_id, status: 'FAILED' },
      run_id: null,
    });
    expect((await status(graph)).body.depth).toBeUndefined();
    const missing = await result(graph);
    expect([missing.status, missing.problem.code, missing.problem.detail]).toEqual([
      400,
      '20-1028',
      `Recipe execution with ID ${excerpt(run.execution!.job_id)} for schema analysis is missing`,
    ]);
    expect((await analyse(graph, 'SHALLOW')).problem.code).toBe('20-1064');
  });

  it('the record of an analysis holds only while the output is the one analysed and the job owns the analysis', async () => {
    const graph = await joinGraph(api, tables);
    const runId = await ranJoin(graph);
    const node = { tenantId: 'local', datasetId: graph.datasetId, graphVersion: 1, nodeId: graph.join };
    const { job, request } = await nodeAnalyses.begin(node, 'SHALLOW');
    await markRunning(job, { stage: 'READING', percent: 0 });
    await expect(nodeAnalyses.record(job, { ...request, run_id: 'recipe-run-replaced' })).rejects.toMatchObject({
      code: '20-1028',
    });
    await expect(
      nodeAnalyses.record(nodeAnalysisJobRef(node, 'node-schema-analysis-other'), request),
    ).rejects.toBeInstanceOf(JobSupersededError);
    await nodeAnalyses.record(job, request);
    expect((await nodeAnalyses.find(node))?.analysed).toEqual({ run_id: runId, depth: 'SHALLOW', job_id: job.job_id });
  });

  it('another tenant sees none of it (10-404)', async () => {
    const graph = await joinGraph(api, tables);
    const stranger = await env.clientFor('stranger', ['admin']);
    for (const answer of [await status(graph, undefined, stranger), await analyse(graph, 'SHALLOW', stranger)])
      expect([answer.status, answer.problem.code]).toEqual([404, '10-404']);
  });
});
