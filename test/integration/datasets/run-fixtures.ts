/**
 * Building blocks of the recipe-run tests, over the public API: CSV tables imported through
 * the pipeline, a graph of a join recipe and an aggregate on top, runs polled until they end,
 * and the same SQL run directly in DuckDB on the source CSVs to say what the rows must be.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';
import { expect } from 'vitest';
import type { ApiClient, ResponseBody } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { importAndWait, putObjects, tableOver, waitForJob } from '../../support/imports';
import { createRecipe, type Recipe } from '../recipes/fixtures';

export const JOIN_SQL = 'SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id';
export const AGGREGATE_SQL =
  'SELECT name, count(*)::INTEGER AS orders, sum(amount)::DOUBLE AS total FROM joined GROUP BY name ORDER BY name';

/** Rows in a table's sample (shared/engine/csv-import.ts DEFAULT_SAMPLE_ROWS). */
export const SAMPLE_ROWS = 10_000;

export const CUSTOMERS_CSV = 'id,name\n1,ada\n2,bob\n3,cy\n4,dee\n';

/** More orders than a sample holds, so a sample run and a full run give different rows. */
export function ordersCsv(rows = SAMPLE_ROWS + 57): string {
  const lines = ['id,customer_id,amount'];
  for (let id = 1; id <= rows; id += 1) lines.push(`${id},${(id % 5) + 1},${(id * 7) % 100}`);
  return `${lines.join('\n')}\n`;
}

let sequence = 0;

/** A table imported from `csv` (one COMPLETED version); answers its id. */
export async function importedTable(api: ApiClient, env: TestTwin, csv: string): Promise<number> {
  const folder = `runs-${process.pid}-${(sequence += 1)}`;
  await putObjects(env, 'landing', { [`${folder}/data.csv`]: csv });
  const tableId = await tableOver(api, env, `landing/${folder}/`);
  const { execution } = await importAndWait(api, tableId);
  // The whole execution when it failed: its code and cause say why.
  expect(execution.status, JSON.stringify(execution)).toBe('COMPLETED');
  return tableId;
}

export interface JoinGraph {
  readonly datasetId: number;
  readonly orders: number;
  readonly customers: number;
  readonly join: number;
  readonly aggregate: number;
  readonly joinRecipe: Recipe;
  readonly aggregateRecipe: Recipe;
}

/** A dataset whose version 1 joins two tables and aggregates the join. */
export async function joinGraph(
  api: ApiClient,
  tables: { readonly orders: number; readonly customers: number },
  codes: { join?: string; aggregate?: string } = {},
): Promise<JoinGraph> {
  const joinRecipe = await createRecipe(api, {
    aliases: ['orders', 'customers'],
    recipe_version: { code: codes.join ?? JOIN_SQL },
  });
  const aggregateRecipe = await createRecipe(api, {
    aliases: ['joined'],
    recipe_version: { code: codes.aggregate ?? AGGREGATE_SQL },
  });
  const datasetId = (await api.call('createDataset', { body: { name: `runs-${process.pid}-${(sequence += 1)}` } })).body
    .id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const addTable = async (tableId: number) =>
    (
      await api.call('addDatasetNode', {
        params,
        body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId },
      })
    ).body.id;
  const orders = await addTable(tables.orders);
  const customers = await addTable(tables.customers);
  const addRecipe = async (recipe: Recipe, sources: { source_node_id: number; alias: string }[]) => {
    const response = await api.call('addDatasetNode', {
      params,
      body: {
        node_type: 'RECIPE',
        dataset_id: datasetId,
        recipe_id: recipe.id,
        recipe_version_number: 1,
        source_node_definitions: sources,
      },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.id;
  };
  const join = await addRecipe(joinRecipe, [
    { source_node_id: orders, alias: 'orders' },
    { source_node_id: customers, alias: 'customers' },
  ]);
  const aggregate = await addRecipe(aggregateRecipe, [{ source_node_id: join, alias: 'joined' }]);
  return { datasetId, orders, customers, join, aggregate, joinRecipe, aggregateRecipe };
}

/** A dataset whose version 1 reads one table through one recipe node, the table named `alias` in the recipe. */
export async function tableRecipeGraph(
  api: ApiClient,
  graph: {
    readonly tableId: number;
    readonly recipeId: number;
    readonly alias: string;
    readonly name?: string;
    /** null: the table's latest version when the node runs. */
    readonly tableVersion?: null;
  },
): Promise<{ datasetId: number; tableNode: number; recipeNode: number }> {
  const name = graph.name ?? `graph-${process.pid}-${(sequence += 1)}`;
  const dataset = await api.call('createDataset', { body: { name } });
  expect(dataset.status, dataset.text).toBe(201);
  const datasetId = dataset.body.id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const table = await api.call('addDatasetNode', {
    params,
    body: {
      node_type: 'TABLE',
      dataset_id: datasetId,
      data_table_id: graph.tableId,
      ...(graph.tableVersion === null ? { data_table_version_number: null } : {}),
    },
  });
  expect(table.status, table.text).toBe(201);
  const recipe = await api.call('addDatasetNode', {
    params,
    body: {
      node_type: 'RECIPE',
      dataset_id: datasetId,
      recipe_id: graph.recipeId,
      recipe_version_number: 1,
      source_node_definitions: [{ source_node_id: table.body.id, alias: graph.alias }],
    },
  });
  expect(recipe.status, recipe.text).toBe(201);
  return { datasetId, tableNode: table.body.id, recipeNode: recipe.body.id };
}

export const nodeAt = (graph: Pick<JoinGraph, 'datasetId'>, nodeId: number) => ({
  dataset_id: graph.datasetId,
  version_number: 1,
  node_id: nodeId,
});

export type RunStatus = ResponseBody<'getDatasetNodeRunStatus'>;

/** Polls a node's run status until its execution ends (bounded). */
export function waitForRun(
  api: ApiClient,
  graph: Pick<JoinGraph, 'datasetId'>,
  nodeId: number,
  timeoutMs = 30_000,
): Promise<RunStatus> {
  return waitForJob(
    () => api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, nodeId) }),
    (status) => status.execution ?? { status: 'PENDING' },
    timeoutMs,
  );
}

/** Starts a run (202) and waits for it to end. */
export async function executeAndWait(
  api: ApiClient,
  graph: Pick<JoinGraph, 'datasetId'>,
  nodeId: number,
  useSample: boolean,
): Promise<RunStatus> {
  const started = await api.call('executeDatasetNode', {
    params: nodeAt(graph, nodeId),
    body: { use_sample: useSample },
  });
  expect(started.status, started.text).toBe(202);
  return waitForRun(api, graph, nodeId);
}

/**
 * The rows `sql` gives when DuckDB runs it directly on the CSV files, each alias a view over
 * its file (the first `limit` rows when given); `views` are further views over those.
 */
export async function directRows(
  tables: Readonly<Record<string, { readonly csv: string; readonly limit?: number }>>,
  views: Readonly<Record<string, string>>,
  sql: string,
): Promise<Record<string, unknown>[]> {
  const folder = await mkdtemp(join(tmpdir(), 'direct-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    for (const [alias, { csv, limit }] of Object.entries(tables)) {
      const path = join(folder, `${alias}.csv`);
      await writeFile(path, csv);
      await connection.run(
        `CREATE VIEW ${alias} AS SELECT * FROM read_csv(${quotedString(path)})${limit === undefined ? '' : ` LIMIT ${limit}`}`,
      );
    }
    for (const [name, code] of Object.entries(views)) await connection.run(`CREATE VIEW ${name} AS ${code}`);
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
    await rm(folder, { recursive: true, force: true });
  }
}
