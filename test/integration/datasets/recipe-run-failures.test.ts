/**
 * Recipe runs that fail, and what may not happen while one runs: SQL that fails at run time
 * (20-1031, 10-1002) with no output left that reads as current, an upstream node failing
 * inside the job, a table without data (20-1059), a crashed worker or one killed at its time
 * limit (10-500 without internals, 10-1047), an engine process that cannot start (10-500
 * saying so), and, with a run held in progress, recipe version updates (20-1048), graph edits
 * and a second run (20-1034) sent in parallel. The worker is the real one,
 * wrapped per dataset to misbehave or to wait on purpose.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineChildBundle } from '../../../infra/local/engine-child-bundle';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import { keys } from '../../../shared/db/keys';
import { useEngineChildBundle } from '../../../shared/engine/isolation/engine-process';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects, tableOver, importAndWait } from '../../support/imports';
import {
  CUSTOMERS_CSV,
  JOIN_SQL,
  executeAndWait,
  importedTable,
  joinGraph,
  nodeAt,
  waitForRun,
  type JoinGraph,
} from './run-fixtures';
import { lastSignOfLifeAnHourAgo } from '../../support/abandoned-job';

type Misbehaviour = 'throw' | 'killed-at-timeout';

/** How Step Functions reports a Lambda that died without answering (its runtime killed it at its timeout). */
const lambdaDied = (cause: string) => Object.assign(new Error(cause), { name: 'Lambda.Unknown' });

const misbehaviours = new Map<number, Misbehaviour>();
/** Runs of these datasets wait until their gate opens, as a long run would. */
const gates = new Map<number, Promise<void>>();

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== recipeRunJob.worker.name) return handler;
  return async (input, context) => {
    const datasetId = (input as { params: { dataset_id: number } }).params.dataset_id;
    switch (misbehaviours.get(datasetId)) {
      case 'throw':
        throw new TypeError('boom: something nobody expected at /var/task/secret-path');
      case 'killed-at-timeout':
        throw lambdaDied('RequestId: 7f0c Error: Task timed out after 900.00 seconds');
      default:
    }
    await gates.get(datasetId);
    return handler(input, context);
  };
}

let env: TestTwin;
let api: ApiClient;
let tables: { orders: number; customers: number };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], loadWorker, retryIntervalMs: 10 });
  api = env.admin;
  tables = {
    orders: await importedTable(api, env, 'id,customer_id,amount\n1,1,10\n2,2,20\n3,1,5\n'),
    customers: await importedTable(api, env, CUSTOMERS_CSV),
  };
});

afterAll(async () => {
  await env?.close();
});

/** Holds the runs of `graph` until the returned function is called. */
function hold(graph: JoinGraph): () => void {
  let open = (): void => undefined;
  gates.set(
    graph.datasetId,
    new Promise<void>((resolve) => {
      open = resolve;
    }),
  );
  return () => {
    open();
    gates.delete(graph.datasetId);
  };
}

const preview = (graph: JoinGraph, nodeId: number) => api.call('previewDatasetNode', { params: nodeAt(graph, nodeId) });

describe('a run that fails', () => {
  it('SQL that fails at run time: FAILED with 20-1031 naming the column, and no output (preview 20-1039)', async () => {
    const graph = await joinGraph(api, tables, {
      aggregate: 'SELECT nosuch, count(*) AS n FROM joined GROUP BY nosuch',
    });
    const done = await executeAndWait(api, graph, graph.aggregate, true);
    expect(done).toMatchObject({
      run_state: 'FAILED',
      metadata: null,
      execution: { status: 'FAILED', error: { code: '20-1031', cause: expect.stringContaining('nosuch') } },
    });
    expect((await preview(graph, graph.aggregate)).problem.code).toBe('20-1039');
    // The join built first in the same job succeeded, and keeps its output.
    expect((await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.join) })).body.run_state).toBe(
      'SUCCEEDED',
    );
    expect((await preview(graph, graph.join)).status).toBe(200);
  });

  it('a value the query cannot convert: 10-1002', async () => {
    const graph = await joinGraph(api, tables, { aggregate: 'SELECT CAST(name AS INTEGER) AS n FROM joined' });
    expect((await executeAndWait(api, graph, graph.aggregate, false)).execution?.error?.code).toBe('10-1002');
  });

  it('an upstream node that fails fails its own execution and the job; a rebuild that fails leaves no earlier output current', async () => {
    const graph = await joinGraph(api, tables);
    expect((await executeAndWait(api, graph, graph.aggregate, true)).run_state).toBe('SUCCEEDED');
    const version = (
      await api.call('getRecipeVersion', { params: { recipe_id: graph.joinRecipe.id, version_number: 1 } })
    ).body;
    const broken = await api.call('updateRecipeVersion', {
      params: { recipe_id: graph.joinRecipe.id, version_number: 1 },
      body: {
        lock_version: version.lock_version,
        code: 'SELECT o.id, o.missing AS amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id',
      },
    });
    expect(broken.status, broken.text).toBe(200);
    const done = await executeAndWait(api, graph, graph.aggregate, true);
    expect(done).toMatchObject({
      run_state: 'FAILED',
      build_node_ids: [graph.join, graph.aggregate],
      execution: { error: { code: '20-1031' } },
    });
    const join = (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.join) })).body;
    expect(join).toMatchObject({
      run_state: 'FAILED',
      metadata: null,
      execution: { status: 'FAILED', error: { code: '20-1031' } },
    });
    expect((await preview(graph, graph.join)).problem.code).toBe('20-1039');
    // The job never reached the aggregate (FAILED with the job's error): its earlier output was not touched.
    expect((await preview(graph, graph.aggregate)).status).toBe(200);
  });

  it('a table without a COMPLETED version: the run is refused with 20-1059', async () => {
    await putObjects(env, 'landing', { 'runs-empty/data.csv': '' });
    const empty = await tableOver(api, env, 'landing/runs-empty/');
    expect((await importAndWait(api, empty)).execution.status).toBe('FAILED');
    const graph = await joinGraph(api, { orders: empty, customers: tables.customers });
    const refused = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: true },
    });
    expect([refused.status, refused.problem.code]).toEqual([404, '20-1059']);
    expect((await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).problem.code).toBe(
      '20-1013',
    );
  });

  it('a worker that crashes: FAILED 10-500 without its internals; one killed at its time limit: FAILED 10-1047; the graph is editable again', async () => {
    const crashed = await joinGraph(api, tables);
    misbehaviours.set(crashed.datasetId, 'throw');
    const silent = await joinGraph(api, tables);
    misbehaviours.set(silent.datasetId, 'killed-at-timeout');
    const [crash, timeout] = await Promise.all([
      executeAndWait(api, crashed, crashed.aggregate, true),
      executeAndWait(api, silent, silent.aggregate, true),
    ]);
    expect(crash).toMatchObject({ run_state: 'FAILED', execution: { error: { code: '10-500' } } });
    expect(JSON.stringify(crash)).not.toMatch(/boom|secret-path/);
    expect(timeout).toMatchObject({ run_state: 'FAILED', execution: { error: { code: '10-1047' } } });
    // The job failed before reaching the join: it shows the job's failure too.
    expect((await api.call('getDatasetNodeRunStatus', { params: nodeAt(silent, silent.join) })).body).toMatchObject({
      run_state: 'FAILED',
      execution: { error: { code: '10-1047' } },
    });
    const edit = await api.call('deleteDatasetNode', { params: nodeAt(silent, silent.aggregate) });
    expect(edit.status, edit.text).toBe(204);
  });
});

describe('a run whose worker went silent', () => {
  it('reads as FAILED 10-1047 and frees the graph version for the next edit; the late worker changes nothing', async () => {
    const graph = await joinGraph(api, tables);
    const release = hold(graph);
    expect(
      (await api.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: true } }))
        .status,
    ).toBe(202);
    const params = { dataset_id: graph.datasetId, version_number: 1 };
    const add = { node_type: 'TABLE', dataset_id: graph.datasetId, data_table_id: tables.orders } as const;
    expect((await api.call('addDatasetNode', { params, body: add })).problem.code).toBe('20-1034');
    // The job's last sign of life was an hour ago.
    await lastSignOfLifeAnHourAgo(keys.nodeRun('local', graph.datasetId, 1, graph.aggregate));
    const status = (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).body;
    expect(status).toMatchObject({ run_state: 'FAILED', execution: { status: 'FAILED', error: { code: '10-1047' } } });
    expect((await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.join) })).body.run_state).toBe(
      'FAILED',
    );
    expect((await api.call('addDatasetNode', { params, body: add })).status).toBe(201);
    release();
    // The late worker finds its job failed and stops: nothing is built.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).body.execution?.error
        ?.code,
    ).toBe('10-1047');
    expect((await preview(graph, graph.join)).problem.code).toBe('20-1039');
  });
});

describe('while a run is in progress', () => {
  it('parallel recipe version updates are 20-1048, graph edits and a second run 20-1034; all pass once it ended', async () => {
    const graph = await joinGraph(api, tables);
    // A second version, so that deleting version 1 meets only the run.
    expect(
      (
        await api.call('createDatasetVersion', {
          params: { dataset_id: graph.datasetId },
          body: { dataset_id: graph.datasetId },
        })
      ).status,
    ).toBe(201);
    const release = hold(graph);
    const started = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: true },
    });
    expect(started.status, started.text).toBe(202);
    const version = (
      await api.call('getRecipeVersion', { params: { recipe_id: graph.joinRecipe.id, version_number: 1 } })
    ).body;
    const params = { dataset_id: graph.datasetId, version_number: 1 };
    const [update, add, rebind, remove, again, dropVersion, dropDataset] = await Promise.all([
      api.call('updateRecipeVersion', {
        params: { recipe_id: graph.joinRecipe.id, version_number: 1 },
        body: { lock_version: version.lock_version, code: JOIN_SQL },
      }),
      api.call('addDatasetNode', {
        params,
        body: { node_type: 'TABLE', dataset_id: graph.datasetId, data_table_id: tables.orders },
      }),
      api.call('updateDatasetNode', {
        params: nodeAt(graph, graph.aggregate),
        body: {
          id: graph.aggregate,
          lock_version: 0,
          node_type: 'RECIPE',
          dataset_id: graph.datasetId,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: graph.join, alias: 'joined' }],
        },
      }),
      api.call('deleteDatasetNode', { params: nodeAt(graph, graph.aggregate) }),
      api.call('executeDatasetNode', { params: nodeAt(graph, graph.join), body: { use_sample: false } }),
      api.call('deleteDatasetVersion', { params }),
      api.call('deleteDataset', { params: { dataset_id: graph.datasetId } }),
    ]);
    expect([update.status, update.problem.code, update.problem.detail]).toEqual([
      409,
      '20-1048',
      expect.stringContaining(`recipe node ${graph.join}`),
    ]);
    for (const refused of [add, rebind, remove, again, dropVersion, dropDataset])
      expect([refused.status, refused.problem.code]).toEqual([400, '20-1034']);
    const running = (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.join) })).body;
    expect(running).toMatchObject({ run_state: 'QUEUED', build_node_ids: [graph.join, graph.aggregate] });

    release();
    expect((await waitForRun(api, graph, graph.aggregate)).run_state).toBe('SUCCEEDED');
    const after = await api.call('updateRecipeVersion', {
      params: { recipe_id: graph.joinRecipe.id, version_number: 1 },
      body: { lock_version: version.lock_version, code: JOIN_SQL },
    });
    expect(after.status, after.text).toBe(200);
    expect((await api.call('deleteDatasetNode', { params: nodeAt(graph, graph.aggregate) })).status).toBe(204);
  });

  it('a run and a recipe version update sent together: either the update is refused, or the run reads the new code', async () => {
    const graph = await joinGraph(api, tables);
    const release = hold(graph);
    const version = (
      await api.call('getRecipeVersion', { params: { recipe_id: graph.aggregateRecipe.id, version_number: 1 } })
    ).body;
    const newCode = `SELECT name AS customer FROM joined GROUP BY name ORDER BY name`;
    const [run, update, secondRun] = await Promise.all([
      api.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: true } }),
      api.call('updateRecipeVersion', {
        params: { recipe_id: graph.aggregateRecipe.id, version_number: 1 },
        body: { lock_version: version.lock_version, code: newCode },
      }),
      api.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: true } }),
    ]);
    // One of the two runs starts, the other meets it running.
    expect([run.status, secondRun.status].sort()).toEqual([202, 400]);
    expect([run, secondRun].find((response) => response.status === 400)?.problem.code).toBe('20-1034');
    release();
    expect((await waitForRun(api, graph, graph.aggregate)).run_state).not.toBe('FAILED');
    const columns = (await preview(graph, graph.aggregate)).body.columns.map((column) => column.name);
    if (update.status === 200) {
      expect(columns).toEqual(['customer']);
    } else {
      expect([update.status, update.problem.code]).toEqual([409, '20-1048']);
      expect(columns).toEqual(['name', 'orders', 'total']);
    }
  });
});

describe('recipes that read nothing the graph gives', () => {
  it('a recipe node whose bound source node was deleted cannot run (20-1049)', async () => {
    const graph = await joinGraph(api, tables);
    const deleted = await api.call('deleteDatasetNode', { params: nodeAt(graph, graph.join) });
    expect(deleted.status, deleted.text).toBe(204);
    const refused = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: true },
    });
    expect([refused.status, refused.problem.code]).toEqual([400, '20-1049']);
  });
});

describe('a run whose engine process cannot start', () => {
  it('ends FAILED 10-500 with a cause that says the engine process could not start, and why (issue 38)', async () => {
    // What the bench's engine watch once did: a module the engine process cannot load, so it ends before it is ready.
    const folder = await mkdtemp(join(tmpdir(), 'broken-engine-'));
    const broken = join(folder, 'engine-child-broken.mjs');
    await writeFile(broken, `import ${JSON.stringify(join(folder, 'missing.ts'))};\n`);
    useEngineChildBundle(broken);
    try {
      const graph = await joinGraph(api, tables);
      const done = await executeAndWait(api, graph, graph.join, true);
      expect(done).toMatchObject({
        run_state: 'FAILED',
        execution: {
          status: 'FAILED',
          error: {
            code: '10-500',
            message: 'The engine process could not start',
            cause: 'the engine process could not start: it exited with code 1 before it was ready',
          },
        },
      });
    } finally {
      useEngineChildBundle(await engineChildBundle());
      await rm(folder, { recursive: true, force: true });
    }
    // The engine's own bundle again: the next run completes.
    const graph = await joinGraph(api, tables);
    expect((await executeAndWait(api, graph, graph.join, true)).run_state).toBe('SUCCEEDED');
  });
});
