/**
 * Releasing a graph version over HTTP (spec 3, conditions 1–3): one free recipe node
 * (20-1020, 20-1058) whose full-data output is current, and so are its upstream nodes'
 * (20-1021); the release freezes the graph (20-1022), locks the recipe versions it uses
 * (20-1046), and races with edits, version updates and runs without ever breaking a rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  AGGREGATE_SQL,
  CUSTOMERS_CSV,
  executeAndWait,
  importedTable,
  joinGraph,
  nodeAt,
  ordersCsv,
  waitForRun,
  type JoinGraph,
} from './run-fixtures';

let env: TestTwin;
let api: ApiClient;
let tables: { orders: number; customers: number };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  api = env.admin;
  tables = {
    orders: await importedTable(api, env, ordersCsv(40)),
    customers: await importedTable(api, env, CUSTOMERS_CSV),
  };
});

afterAll(async () => {
  await env?.close();
});

const version = (datasetId: number) => ({ dataset_id: datasetId, version_number: 1 });
const release = (graph: Pick<JoinGraph, 'datasetId'>) =>
  api.call('releaseDatasetVersion', { params: version(graph.datasetId) });
const recipeVersion = (recipeId: number) =>
  api.call('getRecipeVersion', { params: { recipe_id: recipeId, version_number: 1 } });

/** A join graph whose aggregate ran on full data (its join with it). */
async function ranGraph(): Promise<JoinGraph> {
  const graph = await joinGraph(api, tables);
  expect((await executeAndWait(api, graph, graph.aggregate, false)).run_state).toBe('SUCCEEDED');
  return graph;
}

describe('what a release needs', () => {
  it('20-1020 without a recipe node to publish: an empty graph, or one whose only free node is a table', async () => {
    const empty = (await api.call('createDataset', { body: { name: `release-empty-${process.pid}` } })).body.id;
    expect((await release({ datasetId: empty })).problem).toMatchObject({ status: 400, code: '20-1020' });
    await api.call('addDatasetNode', {
      params: version(empty),
      body: { node_type: 'TABLE', dataset_id: empty, data_table_id: tables.orders },
    });
    expect((await release({ datasetId: empty })).problem.code).toBe('20-1020');
  });

  it('20-1058 with more than one free node, a table no recipe reads included', async () => {
    const graph = await joinGraph(api, tables);
    await api.call('addDatasetNode', {
      params: version(graph.datasetId),
      body: { node_type: 'TABLE', dataset_id: graph.datasetId, data_table_id: tables.orders },
    });
    expect((await release(graph)).problem).toMatchObject({ status: 400, code: '20-1058' });
  });

  it('20-1021 before a full run, after a sample run only, and when the output is stale; nothing is locked', async () => {
    const graph = await joinGraph(api, tables);
    expect((await release(graph)).problem).toMatchObject({ status: 400, code: '20-1021' });
    expect((await executeAndWait(api, graph, graph.aggregate, true)).run_state).toBe('SUCCEEDED');
    expect((await release(graph)).problem.code).toBe('20-1021');
    expect((await executeAndWait(api, graph, graph.aggregate, false)).run_state).toBe('SUCCEEDED');
    // The upstream join's code changes: both outputs are stale.
    const join = (await recipeVersion(graph.joinRecipe.id)).body;
    const changed = await api.call('updateRecipeVersion', {
      params: { recipe_id: graph.joinRecipe.id, version_number: 1 },
      body: { lock_version: join.lock_version, code: `${join.code ?? ''} WHERE o.amount > 0` },
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await release(graph)).problem.code).toBe('20-1021');
    // The picture of the graph shows why: both recipe nodes read STALE.
    const picture = (await api.call('getDatasetGraphMermaid', { params: version(graph.datasetId) })).text.split('\n');
    expect(picture).toContain(`  class n${graph.join},n${graph.aggregate} STALE`);
    expect(picture.find((line) => line.startsWith(`  n${graph.aggregate}[`))).toContain('<br/>STALE<br/>output');
    expect((await recipeVersion(graph.joinRecipe.id)).body.is_locked).toBe(false);
    expect((await api.call('getDatasetVersion', { params: version(graph.datasetId) })).body.release_status).toBe(false);
  });
});

describe('a released version', () => {
  it('is frozen, locks its recipe versions, shows in their usages, and answers a second release as it is', async () => {
    const graph = await ranGraph();
    const released = await release(graph);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ release_status: true, output_dataset_recipe_node_id: graph.aggregate });
    expect((await api.call('getDatasetVersion', { params: version(graph.datasetId) })).body).toEqual(released.body);
    expect((await release(graph)).body).toEqual(released.body);

    for (const recipe of [graph.joinRecipe, graph.aggregateRecipe]) {
      const locked = (await recipeVersion(recipe.id)).body;
      expect(locked).toMatchObject({ is_locked: true, lock_version: 0 });
      expect((await api.call('getRecipe', { params: { recipe_id: recipe.id } })).body.latest_version.is_locked).toBe(
        true,
      );
      const refused = await api.call('updateRecipeVersion', {
        params: { recipe_id: recipe.id, version_number: 1 },
        body: { lock_version: 0, code: AGGREGATE_SQL },
      });
      expect(refused.problem).toMatchObject({
        status: 409,
        code: '20-1046',
        detail: `Recipe version 1 of recipe ${recipe.id} is locked because released datasets use it`,
      });
      // Even with a stale lock_version, the lock is the reason given; new versions may still be created.
      const stale = await api.call('updateRecipeVersion', {
        params: { recipe_id: recipe.id, version_number: 1 },
        body: { lock_version: 7, code: AGGREGATE_SQL },
      });
      expect(stale.problem.code).toBe('20-1046');
      expect((await recipeVersion(recipe.id)).body).toEqual(locked);
      const next = await api.call('createRecipeVersion', {
        params: { recipe_id: recipe.id },
        body: { code: locked.code ?? '' },
      });
      expect([next.status, next.body.version_number, next.body.is_locked]).toEqual([201, 2, false]);
      const usages = (
        await api.call('listRecipeVersionUsages', { params: { recipe_id: recipe.id, version_number: 1 } })
      ).body;
      expect(usages.items).toEqual([expect.objectContaining({ dataset_id: graph.datasetId, release_status: true })]);
    }

    const params = version(graph.datasetId);
    const edits = [
      await api.call('addDatasetNode', {
        params,
        body: { node_type: 'TABLE', dataset_id: graph.datasetId, data_table_id: tables.orders },
      }),
      await api.call('deleteDatasetNode', { params: { ...params, node_id: graph.aggregate } }),
      // A run would replace the outputs the release was judged on.
      await api.call('executeDatasetNode', {
        params: { ...params, node_id: graph.aggregate },
        body: { use_sample: false },
      }),
    ];
    for (const edit of edits) expect(edit.problem).toMatchObject({ status: 400, code: '20-1022' });
    // A new draft copied from it is editable, and its recipe versions stay locked.
    const draft = await api.call('createDatasetVersion', {
      params: { dataset_id: graph.datasetId },
      body: { dataset_id: graph.datasetId, source_transformation_graph_version_number: 1 },
    });
    expect(draft.body.latest_transformation_graph).toMatchObject({ version_number: 2, release_status: false });
  });

  it('is refused while one of its nodes runs (20-1034)', async () => {
    const graph = await ranGraph();
    const started = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: true },
    });
    expect(started.status).toBe(202);
    const during = await release(graph);
    await waitForRun(api, graph, graph.aggregate);
    // The run may already have ended when the release was judged: then it is released.
    if (during.status !== 200) expect(during.problem.code).toBe('20-1034');
  });
});

describe('a release racing with other writes', () => {
  it('with a recipe version update: either the update lands first and the release sees a stale output, or the update meets the lock', async () => {
    for (let round = 0; round < 3; round += 1) {
      const graph = await ranGraph();
      const [released, updated] = await Promise.all([
        release(graph),
        api.call('updateRecipeVersion', {
          params: { recipe_id: graph.aggregateRecipe.id, version_number: 1 },
          body: { lock_version: 0, code: `${AGGREGATE_SQL} LIMIT 2` },
        }),
      ]);
      const outcome = [
        released.status === 200 ? 'released' : released.problem.code,
        updated.status === 200 ? 'updated' : updated.problem.code,
      ];
      expect([
        ['released', '20-1046'],
        ['20-1021', 'updated'],
      ]).toContainEqual(outcome);
      expect((await recipeVersion(graph.aggregateRecipe.id)).body.is_locked).toBe(outcome[0] === 'released');
    }
  });

  it('with a node addition: either the node lands first and makes a second free node, or the addition meets the frozen graph', async () => {
    for (let round = 0; round < 3; round += 1) {
      const graph = await ranGraph();
      const [released, added] = await Promise.all([
        release(graph),
        api.call('addDatasetNode', {
          params: version(graph.datasetId),
          body: { node_type: 'TABLE', dataset_id: graph.datasetId, data_table_id: tables.orders },
        }),
      ]);
      const outcome = [
        released.status === 200 ? 'released' : released.problem.code,
        added.status === 201 ? 'added' : added.problem.code,
      ];
      expect([
        ['released', '20-1022'],
        ['20-1058', 'added'],
      ]).toContainEqual(outcome);
    }
  });

  it('with a run of the output: either the run starts first (20-1034) or it meets the released graph', async () => {
    const graph = await ranGraph();
    const [released, started] = await Promise.all([
      release(graph),
      api.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: false } }),
    ]);
    if (started.status === 202) await waitForRun(api, graph, graph.aggregate);
    const outcome = [
      released.status === 200 ? 'released' : released.problem.code,
      started.status === 202 ? 'started' : started.problem.code,
    ];
    expect([
      ['released', '20-1022'],
      ['20-1034', 'started'],
    ]).toContainEqual(outcome);
  });
});

describe('who may release', () => {
  it('401 without a token, 403 for a reader, 10-404 for another tenant’s dataset', async () => {
    const graph = await ranGraph();
    expect((await env.anonymous.call('releaseDatasetVersion', { params: version(graph.datasetId) })).problem.code).toBe(
      '10-401',
    );
    const viewer = await env.clientFor(env.twin.admin.tenant_id, ['viewer']);
    expect((await viewer.call('releaseDatasetVersion', { params: version(graph.datasetId) })).problem.code).toBe(
      '10-403',
    );
    const other = await env.clientFor('release-other-tenant', ['admin']);
    expect((await other.call('releaseDatasetVersion', { params: version(graph.datasetId) })).problem.code).toBe(
      '10-404',
    );
    expect((await api.call('getDatasetVersion', { params: version(graph.datasetId) })).body.release_status).toBe(false);
  });
});
