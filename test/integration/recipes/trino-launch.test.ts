/**
 * Where a run with a trino-sql node runs (docs/decisions.md, "Trino builds never run on a
 * Fargate task"): its query waits in the state machine, which only a worker on Lambda hands it
 * to, so such a run never goes to a task. Forcing one onto a task is 400 10-1400 naming
 * `launch` and the node, with nothing queued; `auto` keeps it on Lambda past FARGATE_ABOVE_BYTES.
 * What decides is the build, not the graph: the same graph's DuckDB node alone still goes to a
 * task. (A DuckDB-only run past the threshold on a task: test/integration/jobs/fargate.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { directRows, importedTable, nodeAt, waitForRun } from '../datasets/run-fixtures';
import { NEVER } from '../jobs/fargate-support';
import { createRecipe } from './fixtures';

const TENANT = 'trino-launch';
const ORDERS_CSV = 'id,amount\n1,5\n2,7\n3,2\n4,9\n';
let env: TestTwin;
let api: ApiClient;
let orders: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], fargateAboveBytes: Number(NEVER) });
  api = await env.clientFor(TENANT, ['admin']);
  await env.setFeature('athena', TENANT, 'on');
  orders = await importedTable(api, env, ORDERS_CSV);
}, 180_000);
afterAll(() => env?.close());

let datasets = 0;

/** orders → a DuckDB node → a trino-sql node over it: their ids. */
async function mixedGraph(): Promise<{ datasetId: number; duckdb: number; trino: number }> {
  const created = await api.call('createDataset', { body: { name: `trino-launch-${process.pid}-${++datasets}` } });
  const datasetId = created.body.id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const table = await api.call('addDatasetNode', {
    params,
    body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: orders },
  });
  const recipeNode = async (language: 'duckdb-sql' | 'trino-sql', alias: string, code: string, source: number) => {
    const recipe = await createRecipe(api, { language, aliases: [alias], recipe_version: { code } });
    const added = await api.call('addDatasetNode', {
      params,
      body: {
        node_type: 'RECIPE',
        dataset_id: datasetId,
        recipe_id: recipe.id,
        recipe_version_number: 1,
        source_node_definitions: [{ source_node_id: source, alias }],
      },
    });
    expect(added.status, added.text).toBe(201);
    return added.body.id;
  };
  const duckdb = await recipeNode('duckdb-sql', 'orders', 'SELECT id, amount FROM orders', table.body.id);
  const trino = await recipeNode('trino-sql', 'up', 'SELECT id FROM up WHERE amount > 4', duckdb);
  return { datasetId, duckdb, trino };
}

const runStatus = async (graph: { datasetId: number }, nodeId: number) =>
  (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, nodeId) })).body;

/** A node's run status, or the code that answers for a node that never ran (20-1013). */
async function runStatusOrCode(graph: { datasetId: number }, nodeId: number) {
  const answer = await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, nodeId) });
  return answer.status === 200 ? answer.body : answer.problem.code;
}

async function execute(graph: { datasetId: number }, nodeId: number, launch: 'auto' | 'lambda' | 'fargate') {
  return api.call('executeDatasetNode', { params: nodeAt(graph, nodeId), body: { use_sample: false, launch } });
}

describe('a run whose build holds a trino-sql node', () => {
  it('forced onto a task: 400 10-1400 naming launch and the node, nothing queued; the graph’s DuckDB node alone may go', async () => {
    const graph = await mixedGraph();
    const statuses = async () => ({
      duckdb: await runStatusOrCode(graph, graph.duckdb),
      trino: await runStatusOrCode(graph, graph.trino),
    });
    const before = await statuses();
    expect(before).toEqual({ duckdb: '20-1013', trino: '20-1013' });
    const tasksBefore = env.twin.ecs.tasks().length;

    const refused = await execute(graph, graph.trino, 'fargate');
    expect(refused.status, refused.text).toBe(400);
    expect(refused.problem.code).toBe('10-1400');
    expect(refused.problem.extraDetails?.launch).toContain(`node ${graph.trino}, a trino-sql recipe`);
    // Neither node of the build was queued (no PENDING run), and no task started.
    expect(await statuses()).toEqual(before);
    expect(env.twin.ecs.tasks().length).toBe(tasksBefore);

    // A build without it goes where it was sent.
    const upstream = await execute(graph, graph.duckdb, 'fargate');
    expect(upstream.status, upstream.text).toBe(202);
    expect((await waitForRun(api, graph, graph.duckdb)).execution).toMatchObject({
      status: 'COMPLETED',
      runs_on: 'fargate',
    });
    // No run lock was left: the same node runs on Lambda.
    const onLambda = await execute(graph, graph.trino, 'lambda');
    expect(onLambda.status, onLambda.text).toBe(202);
    expect((await waitForRun(api, graph, graph.trino)).execution).toMatchObject({
      status: 'COMPLETED',
      runs_on: 'lambda',
    });
  }, 120_000);

  it('auto: stays on Lambda past FARGATE_ABOVE_BYTES, its DuckDB node built there too', async () => {
    const graph = await mixedGraph();
    const tasksBefore = env.twin.ecs.tasks().length;
    process.env.FARGATE_ABOVE_BYTES = '1';
    try {
      const started = await execute(graph, graph.trino, 'auto');
      expect(started.status, started.text).toBe(202);
      const status = await waitForRun(api, graph, graph.trino);
      expect(status.execution, JSON.stringify(status.execution)).toMatchObject({
        status: 'COMPLETED',
        runs_on: 'lambda',
      });
    } finally {
      process.env.FARGATE_ABOVE_BYTES = NEVER;
    }
    expect(env.twin.ecs.tasks().length).toBe(tasksBefore);
    // The run built both nodes (upstream first): the DuckDB one is current, and the rows are the question's.
    expect((await runStatus(graph, graph.duckdb)).execution).toMatchObject({ status: 'COMPLETED' });
    const preview = await api.call('previewDatasetNode', {
      params: nodeAt(graph, graph.trino),
      query: { use_sample: 'false' },
    });
    expect(preview.status, preview.text).toBe(200);
    const expected = await directRows({ orders: { csv: ORDERS_CSV } }, {}, 'SELECT id FROM orders WHERE amount > 4');
    expect(preview.body.rows.map((row) => Number((row as { id: unknown }).id)).sort()).toEqual(
      expected.map((row) => Number(row.id)).sort(),
    );
  }, 120_000);
});
