/**
 * RECIPE nodes: bindings to the recipe version's aliases and every rule they follow (20-1008,
 * 20-1033, 20-1035, 20-1036, 20-1038, 20-1044, 20-1045, 20-1047, 20-1049 to 20-1052, 20-1055,
 * 20-1056, 20-1057), edges derived from them, binding candidates, recipe version usages, a
 * clone of a graph of 20 recipe nodes, and concurrent edits that must not break a rule together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable } from '../../support/imports';
import { JOIN_CODE, createRecipe, type Recipe } from '../recipes/fixtures';

let env: TestTwin;
let api: ApiClient;
let tableId: number;
let single: Recipe;
let join: Recipe;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
  const sourceId = await createBucketSource(api, await createObjectStoreConnection(api, env), 'landing/t/');
  tableId = await createTable(api, sourceId);
  single = await createRecipe(api);
  join = await createRecipe(api, { aliases: ['orders', 'customers'], recipe_version: { code: JOIN_CODE } });
});

afterAll(async () => {
  await env?.close();
});

let names = 0;
const newDataset = async (): Promise<number> =>
  (await api.call('createDataset', { body: { name: `recipe-graph-${(names += 1)}` } })).body.id;
const at = (datasetId: number, versionNumber = 1) => ({ dataset_id: datasetId, version_number: versionNumber });
const addTableNode = async (datasetId: number): Promise<number> =>
  (
    await api.call('addDatasetNode', {
      params: at(datasetId),
      body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId },
    })
  ).body.id;
const bind = (...pairs: [number, string][]) =>
  pairs.map(([sourceNodeId, alias]) => ({ source_node_id: sourceNodeId, alias }));
const addRecipeNode = (
  datasetId: number,
  recipe: Recipe,
  sources: RequestBody<'addDatasetNode'>['source_node_definitions'],
  extra: Partial<RequestBody<'addDatasetNode'>> = {},
) =>
  api.call('addDatasetNode', {
    params: at(datasetId),
    body: {
      node_type: 'RECIPE',
      dataset_id: datasetId,
      recipe_id: recipe.id,
      recipe_version_number: 1,
      source_node_definitions: sources,
      ...extra,
    },
  });
const rebind = (
  datasetId: number,
  nodeId: number,
  lockVersion: number,
  sources: ReturnType<typeof bind>,
  extra: Partial<RequestBody<'updateDatasetNode'>> = {},
) =>
  api.call('updateDatasetNode', {
    params: { ...at(datasetId), node_id: nodeId },
    body: {
      id: nodeId,
      lock_version: lockVersion,
      node_type: 'RECIPE',
      dataset_id: datasetId,
      recipe_version_number: 1,
      source_node_definitions: sources,
      ...extra,
    },
  });
const graphOf = async (datasetId: number, versionNumber = 1) =>
  (await api.call('getDatasetVersion', { params: at(datasetId, versionNumber) })).body;
const usagesOf = async (recipe: Recipe, versionNumber = 1) =>
  (await api.call('listRecipeVersionUsages', { params: { recipe_id: recipe.id, version_number: versionNumber } })).body
    .items;

describe('recipe nodes', () => {
  it('binds a join to two tables and an aggregate after it; edges carry the aliases; usages list the nodes', async () => {
    const id = await newDataset();
    const orders = await addTableNode(id);
    const customers = await addTableNode(id);
    const joined = await addRecipeNode(id, join, bind([orders, 'ORDERS'], [customers, 'customers']));
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({
      node_type: 'RECIPE',
      recipe_id: join.id,
      recipe_version: { version_number: 1, aliases: ['orders', 'customers'] },
      source_node_definitions: bind([orders, 'orders'], [customers, 'customers']),
      run_state: 'NOT_RUN',
    });
    const aggregate = (await addRecipeNode(id, single, bind([joined.body.id, 'orders']))).body;
    const graph = await graphOf(id);
    expect(graph.edges).toEqual([
      { source_node_id: orders, target_node_id: joined.body.id, alias: 'orders' },
      { source_node_id: customers, target_node_id: joined.body.id, alias: 'customers' },
      { source_node_id: joined.body.id, target_node_id: aggregate.id, alias: 'orders' },
    ]);
    expect(graph.output_dataset_recipe_node_id).toBe(aggregate.id);
    expect((await api.call('listDatasetEdges', { params: at(id) })).body.edges).toEqual(graph.edges);
    const usages = await usagesOf(join);
    expect(usages).toContainEqual(
      expect.objectContaining({
        dataset_id: id,
        version_number: 1,
        node_id: joined.body.id,
        version_display_name: 'V1',
        release_status: false,
      }),
    );
    expect(usages.find((usage) => usage.dataset_id === id)?.lock_version).toBe(graph.lock_version);
    // A renamed dataset shows its new name in the uses.
    await api.call('mergeDataset', {
      params: { dataset_id: id },
      body: { id, lock_version: 0, name: `renamed-${id}` },
    });
    expect((await usagesOf(join)).find((usage) => usage.dataset_id === id)?.dataset_name).toBe(`renamed-${id}`);

    const picture = await api.call('getDatasetGraphMermaid', { params: at(id) });
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('text/vnd.mermaid; charset=utf-8');
    const tableName = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body.name ?? '';
    expect(picture.text.split('\n')).toEqual([
      'flowchart LR',
      `  %% dataset ${id} V1 (draft)`,
      `  n${orders}[("${orders}: ${tableName}<br/>latest COMPLETED")]`,
      `  n${customers}[("${customers}: ${tableName}<br/>latest COMPLETED")]`,
      `  n${joined.body.id}["${joined.body.id}: ${join.name ?? ''}<br/>version 1"]`,
      `  n${aggregate.id}["${aggregate.id}: ${single.name ?? ''}<br/>version 1<br/>output"]`,
      `  n${orders} -->|"orders"| n${joined.body.id}`,
      `  n${customers} -->|"customers"| n${joined.body.id}`,
      `  n${joined.body.id} -->|"orders"| n${aggregate.id}`,
      '',
    ]);
    const other = await env.clientFor('other-tenant', ['admin']);
    expect((await other.call('getDatasetGraphMermaid', { params: at(id) })).problem.code).toBe('10-404');
    expect((await env.anonymous.call('getDatasetGraphMermaid', { params: at(id) })).status).toBe(401);
  });

  it('refuses what breaks a binding rule, each with its code', async () => {
    const id = await newDataset();
    const [a, b, c] = [await addTableNode(id), await addTableNode(id), await addTableNode(id)];
    const cases: [string, Awaited<ReturnType<typeof addRecipeNode>>][] = [
      ['20-1047', await addRecipeNode(id, single, bind([a, 'orders']), { recipe_id: undefined })],
      ['20-1044', await addRecipeNode(id, { ...single, id: 999_999 }, bind([a, 'orders']))],
      ['20-1045', await addRecipeNode(id, single, bind([a, 'orders']), { recipe_version_number: 5 })],
      ['20-1049', await addRecipeNode(id, join, bind([a, 'orders']))],
      ['20-1051', await addRecipeNode(id, join, bind([a, 'orders'], [b, 'Orders']))],
      ['20-1052', await addRecipeNode(id, join, bind([a, 'orders'], [a, 'customers']))],
      ['20-1055', await addRecipeNode(id, join, bind([a, 'orders'], [b, 'clients']))],
      ['20-1038', await addRecipeNode(id, single, bind([404, 'orders']))],
      ['20-1008', await addRecipeNode(id, single, bind([a, 'orders'], [b, 'customers']))],
    ];
    for (const [code, response] of cases) expect(response.problem.code, code).toBe(code);
    const first = (await addRecipeNode(id, single, bind([a, 'orders']))).body;
    const second = (await addRecipeNode(id, single, bind([b, 'orders']))).body;
    expect((await addRecipeNode(id, single, bind([a, 'orders']))).problem).toMatchObject({
      code: '20-1050',
      detail: expect.stringContaining(String(a)),
    });
    expect((await addRecipeNode(id, single, bind([first.id, 'orders'], [second.id, 'x']))).problem.code).toBe(
      '20-1036',
    );
    // first reads from a; binding a to first's own reader would close a cycle.
    const reader = (await addRecipeNode(id, single, bind([first.id, 'orders']))).body;
    expect((await rebind(id, first.id, 0, bind([reader.id, 'orders']))).problem.code).toBe('20-1056');
    expect((await rebind(id, first.id, 0, bind([first.id, 'orders']))).problem.code).toBe('20-1056');
    const connected = await api.call('deleteDatasetNode', { params: { ...at(id), node_id: a } });
    expect(connected.problem).toMatchObject({ code: '20-1033', detail: expect.stringContaining(String(first.id)) });
    const candidates = await api.call('listBindingCandidates', { params: { ...at(id), node_id: a } });
    expect(candidates.problem.code).toBe('20-1057');
    // Nothing refused was written.
    expect((await graphOf(id)).nodes.map((node) => node.id)).toEqual([a, b, c, first.id, second.id, reader.id]);
  });

  it('switches version and rebinds; lists binding candidates; deleting a recipe node takes its edges and usage', async () => {
    const id = await newDataset();
    const [a, b] = [await addTableNode(id), await addTableNode(id)];
    const version2 = await api.call('createRecipeVersion', {
      params: { recipe_id: single.id },
      body: { code: 'SELECT count(*) AS n FROM orders' },
    });
    expect(version2.status).toBe(201);
    const node = (await addRecipeNode(id, single, bind([a, 'orders']))).body;
    const downstream = (await addRecipeNode(id, single, bind([node.id, 'orders']))).body;
    const candidates = await api.call('listBindingCandidates', { params: { ...at(id), node_id: node.id } });
    expect(candidates.body).toEqual({ node_id: node.id, candidates: [{ alias: 'orders', source_node_ids: [a, b] }] });
    const switched = await rebind(id, node.id, 0, bind([b, 'orders']), { recipe_version_number: 2 });
    expect(switched.body).toMatchObject({
      recipe_version: { version_number: 2 },
      source_node_definitions: bind([b, 'orders']),
      lock_version: 1,
    });
    expect((await usagesOf(single, 2)).map((usage) => usage.node_id)).toEqual([node.id]);
    expect(
      (await usagesOf(single, 1)).filter((usage) => usage.dataset_id === id).map((usage) => usage.node_id),
    ).toEqual([downstream.id]);
    expect((await rebind(id, node.id, 0, bind([a, 'orders']))).problem.code).toBe('10-1006');
    // Switching recipe: the join needs both its aliases bound.
    expect((await rebind(id, node.id, 1, bind([b, 'orders']), { recipe_id: join.id })).problem.code).toBe('20-1049');
    const toJoin = await rebind(id, node.id, 1, bind([b, 'orders'], [a, 'customers']), { recipe_id: join.id });
    expect(toJoin.body).toMatchObject({
      recipe_id: join.id,
      recipe_version: { aliases: ['orders', 'customers'] },
      lock_version: 2,
    });
    expect(await usagesOf(single, 2)).toEqual([]);
    expect((await usagesOf(join)).filter((usage) => usage.dataset_id === id).map((usage) => usage.node_id)).toEqual([
      node.id,
    ]);
    expect((await api.call('deleteDatasetNode', { params: { ...at(id), node_id: node.id } })).status).toBe(204);
    const graph = await graphOf(id);
    expect(graph.edges).toEqual([]);
    expect(graph.nodes.find((kept) => kept.id === downstream.id)).toMatchObject({ source_node_definitions: [] });
    expect((await usagesOf(join)).filter((usage) => usage.dataset_id === id)).toEqual([]);
    // The table node is free again.
    expect((await api.call('deleteDatasetNode', { params: { ...at(id), node_id: b } })).status).toBe(204);
  });
});

describe('limits and concurrency', () => {
  it('20 recipe nodes at most, also when added in parallel; a clone of them is identical', async () => {
    const id = await newDataset();
    const tables: number[] = [];
    for (let index = 0; index < 22; index += 1) tables.push(await addTableNode(id));
    for (let index = 0; index < 18; index += 1)
      expect((await addRecipeNode(id, single, bind([tables[index] ?? 0, 'orders']))).status).toBe(201);
    const racing = await Promise.all(
      tables.slice(18).map((table) => addRecipeNode(id, single, bind([table, 'orders']))),
    );
    expect(racing.filter((response) => response.status === 201)).toHaveLength(2);
    expect(racing.filter((response) => response.status === 400).map((response) => response.problem.code)).toEqual([
      '20-1035',
      '20-1035',
    ]);
    const source = await graphOf(id);
    expect(source.nodes.filter((node) => node.node_type === 'RECIPE')).toHaveLength(20);

    const clone = (
      await api.call('createDatasetVersion', {
        params: { dataset_id: id },
        body: { dataset_id: id, source_transformation_graph_version_number: 1 },
      })
    ).body.latest_transformation_graph;
    expect(clone.nodes).toEqual(source.nodes);
    expect(clone.edges).toEqual(source.edges);
    expect(clone.edges).toHaveLength(20);
    const usages = (await usagesOf(single)).filter((usage) => usage.dataset_id === id);
    expect(usages.filter((usage) => usage.version_number === 2)).toHaveLength(20);
    expect(usages.filter((usage) => usage.version_number === 1)).toHaveLength(20);
    // Deleting the dataset removes every use.
    expect((await api.call('deleteDataset', { params: { dataset_id: id } })).status).toBe(204);
    expect((await usagesOf(single)).filter((usage) => usage.dataset_id === id)).toEqual([]);
  });

  it('two rebinds that would close a cycle together: one wins, the other is refused', async () => {
    for (let round = 0; round < 3; round += 1) {
      const id = await newDataset();
      const [a, b] = [await addTableNode(id), await addTableNode(id)];
      const x = (await addRecipeNode(id, single, bind([a, 'orders']))).body;
      const y = (await addRecipeNode(id, single, bind([b, 'orders']))).body;
      const [first, second] = await Promise.all([
        rebind(id, x.id, 0, bind([y.id, 'orders'])),
        rebind(id, y.id, 0, bind([x.id, 'orders'])),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 400]);
      expect([first, second].find((response) => response.status === 400)?.problem.code).toBe('20-1056');
      const edges = (await graphOf(id)).edges;
      expect(edges).toHaveLength(2);
    }
  });

  it('parallel bindings of one source: only one node gets it (20-1050), no edge is lost', async () => {
    const id = await newDataset();
    const a = await addTableNode(id);
    const results = await Promise.all([1, 2, 3].map(() => addRecipeNode(id, single, bind([a, 'orders']))));
    expect(results.filter((response) => response.status === 201)).toHaveLength(1);
    expect(results.filter((response) => response.status === 400).map((response) => response.problem.code)).toEqual([
      '20-1050',
      '20-1050',
    ]);
    expect((await graphOf(id)).edges).toHaveLength(1);
  });

  it('another tenant cannot list candidates', async () => {
    const id = await newDataset();
    const a = await addTableNode(id);
    const node = (await addRecipeNode(id, single, bind([a, 'orders']))).body;
    const other = await env.clientFor('other-tenant', ['admin']);
    const refused = await other.call('listBindingCandidates', { params: { ...at(id), node_id: node.id } });
    expect(refused.problem.code).toBe('10-404');
  });
});
