/**
 * Column lineage over the API: a graph of two imported tables, a join recipe and an aggregate
 * on top (run-fixtures.ts), its lineage per node, one output column followed back to the
 * source objects, the Mermaid picture, and what is downstream of a data version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { CUSTOMERS_CSV, importedTable, joinGraph, nodeAt, ordersCsv, type JoinGraph } from '../datasets/run-fixtures';

let env: TestTwin;
let api: ApiClient;
let graph: JoinGraph;
let tables: { orders: number; customers: number };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  const [orders, customers] = await Promise.all([
    importedTable(api, env, ordersCsv(20)),
    importedTable(api, env, CUSTOMERS_CSV),
  ]);
  tables = { orders, customers };
  graph = await joinGraph(api, tables);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

const version = () => ({ dataset_id: graph.datasetId, version_number: 1 });

describe('column lineage of a graph version', () => {
  it('says for each column of each node what it reads and how', async () => {
    const response = await api.call('getDatasetVersionLineage', { params: version() });
    expect(response.status, response.text).toBe(200);
    const byNode = new Map(response.body.nodes.map((node) => [node.node_id, node]));
    expect(byNode.get(graph.orders)).toMatchObject({
      node_type: 'TABLE',
      data_table_id: tables.orders,
      data_version_number: 1,
      columns: [{ name: 'id' }, { name: 'customer_id' }, { name: 'amount' }],
    });
    // JOIN_SQL: SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id
    const join = byNode.get(graph.join)!;
    expect(join.columns.map((column) => [column.name, column.from])).toEqual([
      ['id', [{ node_id: graph.orders, column: 'id', how: 'copied' }]],
      ['amount', [{ node_id: graph.orders, column: 'amount', how: 'copied' }]],
      ['name', [{ node_id: graph.customers, column: 'name', how: 'copied' }]],
    ]);
    expect(join.indirect).toEqual(
      expect.arrayContaining([
        { node_id: graph.customers, column: 'id', how: 'join' },
        { node_id: graph.orders, column: 'customer_id', how: 'join' },
      ]),
    );
    // AGGREGATE_SQL: SELECT name, count(*)::INTEGER AS orders, sum(amount)::DOUBLE AS total FROM joined GROUP BY name ORDER BY name
    const aggregate = byNode.get(graph.aggregate)!;
    expect(aggregate.columns.map((column) => [column.name, column.from])).toEqual([
      ['name', [{ node_id: graph.join, column: 'name', how: 'copied' }]],
      ['orders', []],
      ['total', [{ node_id: graph.join, column: 'amount', how: 'aggregated' }]],
    ]);
    expect(aggregate.indirect).toEqual([
      { node_id: graph.join, column: 'name', how: 'group_by' },
      { node_id: graph.join, column: 'name', how: 'sort' },
    ]);
  });

  it('follows an output column back to the data-table column and the object its source reads', async () => {
    const response = await api.call('traceNodeColumn', {
      params: nodeAt(graph, graph.aggregate),
      query: { column: 'total' },
    });
    expect(response.status, response.text).toBe(200);
    const direct = response.body.sources.filter((source) =>
      ['copied', 'transformed', 'aggregated'].includes(source.how),
    );
    expect(direct).toEqual([
      {
        node_id: graph.orders,
        data_table_id: tables.orders,
        data_version_number: 1,
        column: 'amount',
        how: 'aggregated',
        source_object: expect.objectContaining({ namespace: 's3://landing', connection_type: 'object_store' }),
      },
    ]);
    // The join's keys and the grouping decide the rows: on the path, as such.
    expect(response.body.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ data_table_id: tables.customers, column: 'name', how: 'group_by' }),
      ]),
    );
    expect(response.body.unknown).toEqual([]);
    const byPosition = await api.call('traceNodeColumn', {
      params: nodeAt(graph, graph.aggregate),
      query: { column: '3' },
    });
    expect(byPosition.body.column.name).toBe('total');
    const missing = await api.call('traceNodeColumn', {
      params: nodeAt(graph, graph.aggregate),
      query: { column: 'nope' },
    });
    expect(missing.problem.code).toBe('10-404');
  });

  it('draws the lineage as Mermaid', async () => {
    const response = await api.call('getDatasetVersionLineageMermaid', { params: version() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/vnd.mermaid');
    expect(response.text).toMatch(/^flowchart LR\n/);
    expect(response.text).toMatch(/c\d+_\d+ -->\|aggregated\| c\d+_\d+/);
  });

  it('lists what is downstream of a data version', async () => {
    const response = await api.call('getDataVersionLineage', {
      params: { data_table_id: tables.customers, version_number: 1 },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.nodes.map((node) => node.node_id).sort()).toEqual(
      [graph.customers, graph.join, graph.aggregate].sort(),
    );
    expect(response.body.nodes.find((node) => node.node_id === graph.join)?.columns).toContain('name');
    const missing = await api.call('getDataVersionLineage', {
      params: { data_table_id: tables.customers, version_number: 9 },
    });
    expect(missing.problem.code).toBe('10-404');
  });

  it('is the tenant’s own', async () => {
    const other = await env.clientFor('lineage-other', ['admin']);
    expect((await other.call('getDatasetVersionLineage', { params: version() })).problem.code).toBe('10-404');
  });
});
