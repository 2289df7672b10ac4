/**
 * trino-sql recipes run end to end on the twin: the worker registers each input with the local
 * Glue over its exact file, Athena's stand-in runs the CTAS, and the node's output (data,
 * preview, schema, analysis) is written as a DuckDB run writes it. Each question's rows equal
 * the same question computed directly by DuckDB on the source CSVs: one source, a join, an
 * aggregate, window functions, dates; a graph mixing languages runs upstream first. A column
 * the code names that its input lacks is 20-1031 at run (binding Trino code is Athena's); a
 * query past the stage's bytes-scanned cutoff fails naming it; a tenant at its data quota
 * cannot start a run (20-1042); with the athena toggle turned off since, a run fails 10-1501.
 * No worker waits for a query: the execution's history shows the worker handing it to the
 * machine's `athena:startQueryExecution.sync` state and finishing the node when it ends.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetExecutionHistoryCommand, SFNClient, type HistoryEvent } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import { stateMachineArnVariable } from '../../../shared/jobs/define-job';
import { nodeOutputPrefix } from '../../../shared/datasets/run-storage';
import type { ApiClient } from '../../support/api-client';
import { localS3Client } from '../../support/local-s3';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { directRows, executeAndWait, importedTable, nodeAt } from '../datasets/run-fixtures';
import { createRecipe } from './fixtures';
import { eventually } from '../jobs/cancel-support';

let env: TestTwin;
let api: ApiClient;
const TENANT = 'trino-runs';
const ORDERS_CSV =
  'id,customer_id,amount,day\n1,1,5,2024-01-03\n2,2,7,2024-01-20\n3,1,2,2024-02-11\n4,3,9,2024-02-29\n5,2,4,2024-03-05\n6,1,8,2024-03-31\n';
const CUSTOMERS_CSV = 'id,name\n1,ada\n2,bob\n3,cy\n';
let orders: number;
let customers: number;

/** Turns a toggle on for a tenant and waits until every route sees it. */
async function toggleOn(toggle: string, tenantId: string): Promise<void> {
  await env.setFeature(toggle, tenantId, 'on');
}

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  api = await env.clientFor(TENANT, ['admin']);
  await toggleOn('athena', TENANT);
  orders = await importedTable(api, env, ORDERS_CSV);
  customers = await importedTable(api, env, CUSTOMERS_CSV);
});
afterAll(() => env?.close());

let datasets = 0;

/** A dataset with the orders and customers tables and one recipe node per recipe, each reading what `sources` names. */
async function graphOf(
  nodes: readonly { language: 'trino-sql' | 'duckdb-sql'; code: string; sources: Record<string, string> }[],
  client: ApiClient = api,
  tables: { readonly orders: number; readonly customers: number } = { orders, customers },
): Promise<{ datasetId: number; ids: number[] }> {
  const api = client;
  const datasetId = (await api.call('createDataset', { body: { name: `trino-runs-${process.pid}-${++datasets}` } }))
    .body.id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const ids: Record<string, number> = {};
  for (const [name, tableId] of Object.entries(tables)) {
    const table = await api.call('addDatasetNode', {
      params,
      body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId },
    });
    ids[name] = table.body.id;
  }
  const recipeIds: number[] = [];
  for (const [index, node] of nodes.entries()) {
    const aliases = Object.keys(node.sources);
    const recipe = await createRecipe(api, { language: node.language, aliases, recipe_version: { code: node.code } });
    const added = await api.call('addDatasetNode', {
      params,
      body: {
        node_type: 'RECIPE',
        dataset_id: datasetId,
        recipe_id: recipe.id,
        recipe_version_number: 1,
        source_node_definitions: aliases.map((alias) => ({ source_node_id: ids[node.sources[alias]!]!, alias })),
      },
    });
    expect(added.status, added.text).toBe(201);
    ids[`node${index}`] = added.body.id;
    recipeIds.push(added.body.id);
  }
  return { datasetId, ids: recipeIds };
}

async function previewRows(datasetId: number, nodeId: number): Promise<unknown[]> {
  const preview = await api.call('previewDatasetNode', {
    params: nodeAt({ datasetId }, nodeId),
    query: { use_sample: 'false' },
  });
  expect(preview.status, preview.text).toBe(200);
  return preview.body.rows;
}

const direct = (sql: string) => directRows({ orders: { csv: ORDERS_CSV }, customers: { csv: CUSTOMERS_CSV } }, {}, sql);

describe('a trino-sql node run', () => {
  const questions = [
    {
      what: 'one source',
      trino: 'SELECT id, amount * 2 AS doubled FROM orders WHERE amount > 4',
      duckdb: 'SELECT id, (amount * 2)::INTEGER AS doubled FROM orders WHERE amount > 4',
      sources: { orders: 'orders' },
    },
    {
      what: 'a join',
      trino: 'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id',
      duckdb: 'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id',
      sources: { orders: 'orders', customers: 'customers' },
    },
    {
      what: 'an aggregate',
      trino:
        'SELECT c.name, count(*) AS orders, sum(o.amount) AS total, avg(o.amount) AS mean, 7 / 2 AS half FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name',
      duckdb:
        'SELECT c.name, count(*)::INTEGER AS orders, sum(o.amount)::INTEGER AS total, avg(o.amount) AS mean, 3 AS half FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name',
      sources: { orders: 'orders', customers: 'customers' },
    },
    {
      what: 'window functions',
      trino:
        'SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rank_in_customer, sum(amount) OVER (PARTITION BY customer_id ORDER BY id) AS running FROM orders',
      duckdb:
        'SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC)::INTEGER AS rank_in_customer, sum(amount) OVER (PARTITION BY customer_id ORDER BY id)::INTEGER AS running FROM orders',
      sources: { orders: 'orders' },
    },
    {
      what: 'dates',
      trino:
        "SELECT year(day) AS y, month(day) AS m, count(*) AS n, max(day) AS last_day FROM orders WHERE day >= DATE '2024-01-15' GROUP BY year(day), month(day)",
      duckdb:
        "SELECT year(day)::INTEGER AS y, month(day)::INTEGER AS m, count(*)::INTEGER AS n, strftime(max(day), '%Y-%m-%d') AS last_day FROM orders WHERE day >= DATE '2024-01-15' GROUP BY ALL",
      sources: { orders: 'orders' },
    },
  ] as const;

  const sorted = (rows: readonly unknown[]) => [...rows].map((row) => JSON.stringify(row)).sort();

  for (const question of questions) {
    it(`answers ${question.what} as DuckDB does directly`, async () => {
      const graph = await graphOf([{ language: 'trino-sql', code: question.trino, sources: question.sources }]);
      const status = await executeAndWait(api, graph, graph.ids[0]!, false);
      expect(status.execution, JSON.stringify(status.execution)).toMatchObject({ status: 'COMPLETED' });
      const rows = await previewRows(graph.datasetId, graph.ids[0]!);
      const expected = (await direct(question.duckdb)).map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value]),
        ),
      );
      expect(
        sorted(
          rows.map((row) =>
            JSON.parse(JSON.stringify(row), (_key, value: unknown) =>
              typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value,
            ),
          ),
        ),
      ).toEqual(sorted(expected));
    });
  }
});

/** The files under a node's full output folder. */
async function outputFiles(datasetId: number, nodeId: number): Promise<string[]> {
  const prefix = nodeOutputPrefix(TENANT, datasetId, 1, nodeId, 'full');
  const s3 = localS3Client(env.twin.s3.endpoint);
  try {
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: prefix }));
    return (listing.Contents ?? []).map((object) => object.Key!.slice(prefix.length)).sort();
  } finally {
    s3.destroy();
  }
}

describe('trino-sql runs beside DuckDB ones', () => {
  it('leave the output files a DuckDB run leaves, and nothing of Athena’s', async () => {
    const graph = await graphOf([
      { language: 'trino-sql', code: 'SELECT id FROM orders', sources: { orders: 'orders' } },
    ]);
    const status = await executeAndWait(api, graph, graph.ids[0]!, false);
    expect(status.execution?.status).toBe('COMPLETED');
    expect(status.metadata).toMatchObject({ row_count: 6, column_count: 1 });
    expect(await outputFiles(graph.datasetId, graph.ids[0]!)).toEqual([
      'data.parquet',
      'preview.json',
      'schema-analysis.shallow.json',
      'schema.json',
    ]);
  });

  it('run a graph mixing languages upstream first, each node on its own engine', async () => {
    const graph = await graphOf([
      {
        language: 'duckdb-sql',
        code: 'SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id',
        sources: { orders: 'orders', customers: 'customers' },
      },
    ]);
    // Trino over DuckDB's output, then DuckDB over Trino's.
    const params = { dataset_id: graph.datasetId, version_number: 1 };
    const add = async (language: 'trino-sql' | 'duckdb-sql', code: string, source: number) => {
      const recipe = await createRecipe(api, { language, aliases: ['up'], recipe_version: { code } });
      const added = await api.call('addDatasetNode', {
        params,
        body: {
          node_type: 'RECIPE',
          dataset_id: graph.datasetId,
          recipe_id: recipe.id,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: source, alias: 'up' }],
        },
      });
      expect(added.status, added.text).toBe(201);
      return added.body.id;
    };
    const trino = await add(
      'trino-sql',
      'SELECT name, sum(amount) AS total, 9 / 2 AS four FROM up GROUP BY name',
      graph.ids[0]!,
    );
    const last = await add('duckdb-sql', 'SELECT name, total * 10 AS scaled, four FROM up', trino);
    const status = await executeAndWait(api, graph, last, false);
    expect(status.execution, JSON.stringify(status.execution)).toMatchObject({ status: 'COMPLETED' });
    for (const node of [graph.ids[0]!, trino])
      expect((await api.call('getDatasetNode', { params: nodeAt(graph, node) })).body).toMatchObject({
        run_state: 'SUCCEEDED',
      });
    const expected = await direct(
      'SELECT c.name, (sum(o.amount) * 10)::INTEGER AS scaled, 4 AS four FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name',
    );
    const rows = (await previewRows(graph.datasetId, last)) as Record<string, unknown>[];
    expect(rows.map((row) => [row.name, Number(row.scaled), Number(row.four)]).sort()).toEqual(
      expected.map((row) => [row.name, row.scaled, row.four]).sort(),
    );
  });

  it('fail with 20-1031 naming a column the input lacks: Trino code is bound when Athena runs it', async () => {
    const graph = await graphOf([
      { language: 'trino-sql', code: 'SELECT colour FROM orders', sources: { orders: 'orders' } },
    ]);
    const status = await executeAndWait(api, graph, graph.ids[0]!, false);
    expect(status.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '20-1031', message: 'Invalid column name: colour', cause: expect.stringContaining('colour') },
    });
    expect(await outputFiles(graph.datasetId, graph.ids[0]!)).toEqual([]);
  });

  it('stop at the stage’s bytes-scanned cutoff, failing with the reason named', async () => {
    const graph = await graphOf([
      { language: 'trino-sql', code: 'SELECT id FROM orders', sources: { orders: 'orders' } },
    ]);
    process.env.ATHENA_BYTES_SCANNED_CUTOFF = '10';
    try {
      const status = await executeAndWait(api, graph, graph.ids[0]!, false);
      expect(status.execution).toMatchObject({
        status: 'FAILED',
        error: {
          code: '10-500',
          message: 'The run stopped: its query would scan more than the 10 bytes a query may scan',
          cause: 'bytes scanned limit',
        },
      });
    } finally {
      delete process.env.ATHENA_BYTES_SCANNED_CUTOFF;
    }
    expect(await outputFiles(graph.datasetId, graph.ids[0]!)).toEqual([]);
  });

  it('cannot start for a tenant at its data quota: 20-1042', async () => {
    const tenant = 'trino-runs-quota';
    const client = await env.clientFor(tenant, ['admin']);
    await toggleOn('athena', tenant);
    const tables = {
      orders: await importedTable(client, env, ORDERS_CSV),
      customers: await importedTable(client, env, CUSTOMERS_CSV),
    };
    const graph = await graphOf(
      [{ language: 'trino-sql', code: 'SELECT id FROM orders', sources: { orders: 'orders' } }],
      client,
      tables,
    );
    const created = await client.call('createQuotaContract', {
      body: {
        name: 'spent',
        start_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
        end_date: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        cpu_time_hours: 1000,
        data_transfer_gb: 0,
        overage_allowed: false,
      },
    });
    expect(created.status, created.text).toBe(201);
    await toggleOn('quota_enforcement', tenant);
    const started = await client.call('executeDatasetNode', {
      params: nodeAt(graph, graph.ids[0]!),
      body: { use_sample: false },
    });
    expect([started.status, started.problem?.code]).toEqual([400, '20-1042']);
  });
});

describe('a trino-sql node’s query', () => {
  /** The events of the run's execution (named after its job), once it has ended. */
  async function historyOf(jobId: string): Promise<HistoryEvent[]> {
    const machine = process.env[stateMachineArnVariable(recipeRunJob)]!;
    const sfn = new SFNClient({
      endpoint: process.env.AWS_ENDPOINT_URL_SFN,
      region: 'us-east-1',
      credentials: LOCAL_S3_CREDENTIALS,
    });
    try {
      let events: HistoryEvent[] = [];
      await eventually(
        async () => {
          const history = await sfn.send(
            new GetExecutionHistoryCommand({
              executionArn: `${machine.replace(':stateMachine:', ':execution:')}:${jobId}`,
            }),
          );
          events = history.events ?? [];
          return events.some((event) => event.type === 'ExecutionSucceeded');
        },
        10_000,
        'the execution ended',
      );
      return events;
    } finally {
      sfn.destroy();
    }
  }

  it('waits in the state machine’s athena:startQueryExecution.sync state, not in a worker', async () => {
    const graph = await graphOf([
      { language: 'trino-sql', code: 'SELECT id FROM orders WHERE amount > 4', sources: { orders: 'orders' } },
    ]);
    const status = await executeAndWait(api, graph, graph.ids[0]!, false);
    expect(status.execution, JSON.stringify(status.execution)).toMatchObject({ status: 'COMPLETED' });
    const events = await historyOf(status.execution!.job_id);
    const flow = events.flatMap((event) => {
      const entered = event.stateEnteredEventDetails?.name;
      if (entered !== undefined) return [`enter ${entered}`];
      const task = event.taskScheduledEventDetails;
      return task ? [`call ${task.resourceType}:${task.resource}`] : [];
    });
    // The worker prepares the query and returns; Athena runs it; the worker is called again to finish the node.
    expect(flow).toEqual([
      'enter ChooseLaunch',
      'enter Work',
      'call lambda:invoke',
      'enter AwaitsQuery',
      'enter RunQuery',
      'call athena:startQueryExecution.sync',
      'enter Work',
      'call lambda:invoke',
      'enter AwaitsQuery',
      'enter Done',
    ]);
    const expected = await direct('SELECT id FROM orders WHERE amount > 4');
    const rows = (await previewRows(graph.datasetId, graph.ids[0]!)) as Record<string, unknown>[];
    expect(rows.map((row) => Number(row.id)).sort()).toEqual(expected.map((row) => Number(row.id)).sort());
  });
});

describe('with the athena toggle turned off after the recipe was saved', () => {
  it('a trino-sql node run fails 10-1501 naming the toggle, and leaves no output', async () => {
    const graph = await graphOf([
      { language: 'trino-sql', code: 'SELECT id FROM orders', sources: { orders: 'orders' } },
    ]);
    await env.setFeature('athena', TENANT, 'default');
    const status = await executeAndWait(api, graph, graph.ids[0]!, false);
    expect(status.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1501' } });
    expect(JSON.stringify(status.execution?.error)).toContain('athena');
    expect(await outputFiles(graph.datasetId, graph.ids[0]!)).toEqual([]);
  });
});
