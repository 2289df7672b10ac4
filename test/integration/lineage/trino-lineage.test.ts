/**
 * Column lineage of a graph with trino-sql nodes (athena toggle on): the lineage route answers
 * the columns each node reads and how, from the tree stored with the recipe version when it
 * was saved (the lineage routes never load the Trino parser), and a DuckDB node reading a
 * trino-sql node's unnamed column finds it by Trino's name for it (`_col<n>`). A column is
 * followed back to its data table through both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importedTable, nodeAt } from '../datasets/run-fixtures';
import { createRecipe } from '../recipes/fixtures';

let env: TestTwin;
let api: ApiClient;
const TENANT = 'trino-lineage';
const ORDERS_CSV = 'id,customer_id,amount\n1,1,5\n2,2,7\n3,1,2\n';
const CUSTOMERS_CSV = 'id,name\n1,ada\n2,bob\n';

const TRINO_JOIN =
  'SELECT c.Name, sum(o.amount) AS total, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.amount > 0 GROUP BY c.name';
const DUCKDB_ON_TOP = 'SELECT name, _col2 AS orders FROM joined';

let datasetId: number;
const ids = { orders: 0, customers: 0, join: 0, top: 0, joinRecipe: 0 };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  api = await env.clientFor(TENANT, ['admin']);
  await env.setFeature('athena', TENANT, 'on');
  const [orders, customers] = [await importedTable(api, env, ORDERS_CSV), await importedTable(api, env, CUSTOMERS_CSV)];
  datasetId = (await api.call('createDataset', { body: { name: `trino-lineage-${process.pid}` } })).body.id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const node = async (body: RequestBody<'addDatasetNode'>) => {
    const added = await api.call('addDatasetNode', { params, body });
    expect(added.status, added.text).toBe(201);
    return added.body.id;
  };
  ids.orders = await node({ node_type: 'TABLE', dataset_id: datasetId, data_table_id: orders });
  ids.customers = await node({ node_type: 'TABLE', dataset_id: datasetId, data_table_id: customers });
  const join = await createRecipe(api, {
    language: 'trino-sql',
    aliases: ['orders', 'customers'],
    recipe_version: { code: TRINO_JOIN },
  });
  ids.joinRecipe = join.id;
  ids.join = await node({
    node_type: 'RECIPE',
    dataset_id: datasetId,
    recipe_id: join.id,
    recipe_version_number: 1,
    source_node_definitions: [
      { source_node_id: ids.orders, alias: 'orders' },
      { source_node_id: ids.customers, alias: 'customers' },
    ],
  });
  const top = await createRecipe(api, { aliases: ['joined'], recipe_version: { code: DUCKDB_ON_TOP } });
  ids.top = await node({
    node_type: 'RECIPE',
    dataset_id: datasetId,
    recipe_id: top.id,
    recipe_version_number: 1,
    source_node_definitions: [{ source_node_id: ids.join, alias: 'joined' }],
  });
}, 120_000);
afterAll(() => env?.close());

describe('column lineage of a trino-sql node', () => {
  it('is traced, not unknown: copied, aggregated, join and filter, with Trino’s output names', async () => {
    const response = await api.call('getDatasetVersionLineage', {
      params: { dataset_id: datasetId, version_number: 1 },
    });
    expect(response.status, response.text).toBe(200);
    const join = response.body.nodes.find((entry) => entry.node_id === ids.join)!;
    expect(join.unknown).toBeUndefined();
    expect(join.columns.map((column) => [column.name, column.from, column.unknown])).toEqual([
      ['name', [{ node_id: ids.customers, column: 'name', how: 'copied' }], undefined],
      ['total', [{ node_id: ids.orders, column: 'amount', how: 'aggregated' }], undefined],
      ['_col2', [], undefined],
    ]);
    expect(join.indirect).toEqual(
      expect.arrayContaining([
        { node_id: ids.customers, column: 'id', how: 'join' },
        { node_id: ids.orders, column: 'customer_id', how: 'join' },
        { node_id: ids.orders, column: 'amount', how: 'filter' },
        { node_id: ids.customers, column: 'name', how: 'group_by' },
      ]),
    );
    const top = response.body.nodes.find((entry) => entry.node_id === ids.top)!;
    expect(top.columns.map((column) => [column.name, column.from])).toEqual([
      ['name', [{ node_id: ids.join, column: 'name', how: 'copied' }]],
      ['orders', [{ node_id: ids.join, column: '_col2', how: 'copied' }]],
    ]);
  });

  it('follows a column through the DuckDB node and the trino-sql node to its data table', async () => {
    const response = await api.call('traceNodeColumn', {
      params: nodeAt({ datasetId }, ids.top),
      query: { column: 'name' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sources).toEqual(
      expect.arrayContaining([expect.objectContaining({ node_id: ids.customers, column: 'name', how: 'copied' })]),
    );
  });

  it('follows the version’s code: an update stores a new tree, and the node is traced again', async () => {
    const updated = await api.call('updateRecipeVersion', {
      params: { recipe_id: ids.joinRecipe, version_number: 1 },
      body: {
        lock_version: 0,
        code: 'SELECT upper(c.name) AS name, o.amount AS total, o.id FROM orders o, customers c',
      },
    });
    expect(updated.status, updated.text).toBe(200);
    const response = await api.call('getDatasetVersionLineage', {
      params: { dataset_id: datasetId, version_number: 1 },
    });
    const join = response.body.nodes.find((entry) => entry.node_id === ids.join)!;
    expect(join.columns.map((column) => [column.name, column.from])).toEqual([
      ['name', [{ node_id: ids.customers, column: 'name', how: 'transformed' }]],
      ['total', [{ node_id: ids.orders, column: 'amount', how: 'copied' }]],
      ['id', [{ node_id: ids.orders, column: 'id', how: 'copied' }]],
    ]);
    // The DuckDB node read _col2, which this version no longer has: said, not guessed.
    const top = response.body.nodes.find((entry) => entry.node_id === ids.top)!;
    expect(top.columns[1]).toMatchObject({ name: 'orders', from: [], unknown: expect.stringContaining('_col2') });
  });
});
