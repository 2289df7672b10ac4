/**
 * Running recipe nodes end to end over HTTP: two CSV tables, a join recipe and an aggregate
 * on top; running the aggregate on samples builds the join first, in the same job; the rows
 * are the ones DuckDB gives for the same SQL on the source CSVs; then on full data. Run state
 * (NOT_RUN, SUCCEEDED, STALE), the preview, CPU usage, and who may run what.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { keys } from '../../../shared/db/keys';
import { usagePeriod } from '../../../shared/usage';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importCompleted } from '../../support/imports';
import {
  AGGREGATE_SQL,
  CUSTOMERS_CSV,
  JOIN_SQL,
  SAMPLE_ROWS,
  directRows,
  executeAndWait,
  importedTable,
  joinGraph,
  nodeAt,
  ordersCsv,
  waitForRun,
  type JoinGraph,
} from './run-fixtures';
import { localS3Client } from '../../support/local-s3';

let env: TestTwin;
let api: ApiClient;
const orders = ordersCsv();
let tables: { orders: number; customers: number };
let graph: JoinGraph;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  api = env.admin;
  tables = { orders: await importedTable(api, env, orders), customers: await importedTable(api, env, CUSTOMERS_CSV) };
  graph = await joinGraph(api, tables);
});

afterAll(async () => {
  await env?.close();
});

async function dataBucketKeys(prefix: string): Promise<string[]> {
  const s3 = localS3Client(env.twin.s3.endpoint);
  try {
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: prefix }));
    return (listing.Contents ?? []).map((object) => object.Key!.slice(prefix.length)).sort();
  } finally {
    s3.destroy();
  }
}

const expected = (limit?: number) =>
  directRows(
    { orders: { csv: orders, ...(limit === undefined ? {} : { limit }) }, customers: { csv: CUSTOMERS_CSV } },
    { joined: JOIN_SQL },
    AGGREGATE_SQL,
  );

const preview = (nodeId: number, useSample?: boolean) =>
  api.call('previewDatasetNode', {
    params: nodeAt(graph, nodeId),
    query: useSample === undefined ? {} : { use_sample: String(useSample) as 'true' | 'false' },
  });

describe('running a recipe node', () => {
  it('before any run: NOT_RUN on the node, 20-1013 for its run status, 20-1039 for its preview, 20-1014 for a TABLE node', async () => {
    const node = await api.call('getDatasetNode', { params: nodeAt(graph, graph.aggregate) });
    expect(node.body).toMatchObject({ run_state: 'NOT_RUN', execution: null, metadata: null });
    expect((await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).problem.code).toBe(
      '20-1013',
    );
    expect((await preview(graph.aggregate)).problem.code).toBe('20-1039');
    const onTable = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.orders),
      body: { use_sample: true },
    });
    expect([onTable.status, onTable.problem.code]).toEqual([400, '20-1014']);
  });

  it('on samples: builds the join first in the same job, and gives the rows DuckDB gives on the first sample rows of the CSVs', async () => {
    const started = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: true },
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({
      build_node_ids: [graph.join, graph.aggregate],
      use_sample: true,
      schema_analysis_depth: 'SHALLOW',
      run_by: { id: expect.any(String) },
    });
    expect(['QUEUED', 'RUNNING']).toContain(started.body.run_state);
    const done = await waitForRun(api, graph, graph.aggregate);
    expect(done.run_state, JSON.stringify(done.execution)).toBe('SUCCEEDED');
    expect(done.metadata).toMatchObject({ row_count: 4, column_count: 3, schema_analysis_depth: 'SHALLOW' });
    expect(done.metadata?.cpu_seconds).toBeGreaterThan(0);

    const join = (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.join) })).body;
    // Customer 5 does not exist: the join keeps four orders in five.
    expect(join).toMatchObject({
      run_state: 'SUCCEEDED',
      use_sample: true,
      metadata: { row_count: (SAMPLE_ROWS * 4) / 5 },
    });
    expect(join.execution?.job_id).toBe(done.execution?.job_id);

    const shown = await preview(graph.aggregate);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body).toMatchObject({ use_sample: true, row_count: 4, job_id: done.execution?.job_id });
    expect(shown.body.columns.map((column) => column.name)).toEqual(['name', 'orders', 'total']);
    expect(shown.body.rows).toEqual(await expected(SAMPLE_ROWS));
  });

  it('on full data: the rows of the whole CSVs; the sample output stays current beside it', async () => {
    const done = await executeAndWait(api, graph, graph.aggregate, false);
    expect(done).toMatchObject({
      run_state: 'SUCCEEDED',
      use_sample: false,
      build_node_ids: [graph.join, graph.aggregate],
    });
    const full = await preview(graph.aggregate, false);
    expect(full.body.rows).toEqual(await expected());
    expect(full.body.rows).not.toEqual(await expected(SAMPLE_ROWS));
    expect((await preview(graph.aggregate, true)).body.rows).toEqual(await expected(SAMPLE_ROWS));
    // The node in the graph carries the same run fields.
    const nodes = (await api.call('listDatasetNodes', { params: { dataset_id: graph.datasetId, version_number: 1 } }))
      .body.nodes;
    expect(nodes.find((node) => node.id === graph.aggregate)).toMatchObject({
      run_state: 'SUCCEEDED',
      use_sample: false,
      metadata: { row_count: 4 },
    });
  });

  it('a second run rebuilds only the node asked for while its upstream output is current', async () => {
    const done = await executeAndWait(api, graph, graph.aggregate, true);
    expect(done).toMatchObject({ run_state: 'SUCCEEDED', build_node_ids: [graph.aggregate] });
  });

  it('counts CPU seconds per tenant and day', async () => {
    const usage = await dynamoDocumentClient().send(
      new GetCommand({ TableName: process.env.TABLE_NAME, Key: keys.usage('local', 'CPU_SECONDS', usagePeriod()) }),
    );
    expect(usage.Item?.value).toBeGreaterThan(0);
  });

  it('STALE once a source table has a newer version, or the recipe version’s code changed; a run makes it current again', async () => {
    const own = await joinGraph(api, {
      orders: await importedTable(api, env, 'id,customer_id,amount\n1,1,5\n2,2,7\n'),
      customers: tables.customers,
    });
    expect((await executeAndWait(api, own, own.aggregate, true)).run_state).toBe('SUCCEEDED');
    const ordersTable = (await api.call('getDatasetNode', { params: nodeAt(own, own.orders) })).body;
    if (ordersTable.node_type !== 'TABLE') throw new Error('expected a TABLE node');
    await importCompleted(api, ordersTable.data_table_id);
    const read = async (nodeId: number) =>
      (await api.call('getDatasetNodeRunStatus', { params: nodeAt(own, nodeId) })).body.run_state;
    expect([await read(own.join), await read(own.aggregate)]).toEqual(['STALE', 'STALE']);
    expect(await executeAndWait(api, own, own.aggregate, true)).toMatchObject({
      run_state: 'SUCCEEDED',
      build_node_ids: [own.join, own.aggregate],
    });

    const version = (
      await api.call('getRecipeVersion', { params: { recipe_id: own.aggregateRecipe.id, version_number: 1 } })
    ).body;
    const updated = await api.call('updateRecipeVersion', {
      params: { recipe_id: own.aggregateRecipe.id, version_number: 1 },
      body: { lock_version: version.lock_version, code: `${AGGREGATE_SQL} LIMIT 1` },
    });
    expect(updated.status, updated.text).toBe(200);
    expect([await read(own.join), await read(own.aggregate)]).toEqual(['SUCCEEDED', 'STALE']);
  });
});

describe('outputs in the data bucket', () => {
  it('a built node writes data, preview, schema and analysis under its graph version; deleting the dataset removes them and the run items', async () => {
    const own = await joinGraph(api, tables);
    expect((await executeAndWait(api, own, own.join, false)).run_state).toBe('SUCCEEDED');
    const prefix = `local/datasets/${own.datasetId}/g1/`;
    expect(await dataBucketKeys(prefix)).toEqual(
      ['data.parquet', 'preview.json', 'schema-analysis.shallow.json', 'schema.json'].map(
        (file) => `nodes/${own.join}/full/${file}`,
      ),
    );
    expect((await api.call('deleteDataset', { params: { dataset_id: own.datasetId } })).status).toBe(204);
    expect(await dataBucketKeys(prefix)).toEqual([]);
    const items = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.children('local', 'DATASET', own.datasetId) },
      }),
    );
    expect(items.Items).toEqual([]);
  });
});

describe('who may run', () => {
  it('FULL analysis needs schema:analyze (403 for an editor); SHALLOW is enough for data:write', async () => {
    const editor = await env.clientFor('local', ['editor']);
    const full = await editor.call('executeDatasetNode', {
      params: nodeAt(graph, graph.join),
      body: { use_sample: true, schema_analysis_depth: 'FULL' },
    });
    expect([full.status, full.problem.code]).toEqual([403, '10-403']);
    const done = await executeAndWait(api, graph, graph.join, true);
    expect(done.run_state).toBe('SUCCEEDED');
    const analysed = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.join),
      body: { use_sample: true, schema_analysis_depth: 'FULL' },
    });
    expect(analysed.status, analysed.text).toBe(202);
    expect((await waitForRun(api, graph, graph.join)).metadata?.schema_analysis_depth).toBe('FULL');
  });

  it('a viewer reads run status and preview but cannot run; no token is 401; another tenant sees nothing', async () => {
    const viewer = await env.clientFor('local', ['viewer']);
    expect(
      (await viewer.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: true } }))
        .status,
    ).toBe(403);
    expect((await viewer.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).status).toBe(200);
    expect((await viewer.call('previewDatasetNode', { params: nodeAt(graph, graph.aggregate) })).status).toBe(200);
    for (const operation of ['getDatasetNodeRunStatus', 'previewDatasetNode'] as const) {
      expect((await env.anonymous.call(operation, { params: nodeAt(graph, graph.aggregate) })).status).toBe(401);
    }
    expect(
      (
        await env.anonymous.call('executeDatasetNode', {
          params: nodeAt(graph, graph.aggregate),
          body: { use_sample: true },
        })
      ).status,
    ).toBe(401);
    const other = await env.clientFor('other-tenant', ['admin']);
    expect(
      (await other.call('executeDatasetNode', { params: nodeAt(graph, graph.aggregate), body: { use_sample: true } }))
        .problem.code,
    ).toBe('10-404');
    expect((await other.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).problem.code).toBe(
      '10-404',
    );
    expect((await other.call('previewDatasetNode', { params: nodeAt(graph, graph.aggregate) })).problem.code).toBe(
      '10-404',
    );
  });

  it('run-status of a given job: 20-1015 when the latest run is another one', async () => {
    const status = (await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, graph.aggregate) })).body;
    expect(
      (
        await api.call('getDatasetNodeRunStatus', {
          params: nodeAt(graph, graph.aggregate),
          query: { job_id: status.execution?.job_id },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api.call('getDatasetNodeRunStatus', {
          params: nodeAt(graph, graph.aggregate),
          query: { job_id: 'recipe-run-unknown' },
        })
      ).problem.code,
    ).toBe('20-1015');
  });
});

describe('retries of a run request', () => {
  it('with the same Idempotency-Key: the first answer again (same job, replayed), never a second run; another request with that key is 10-1400', async () => {
    const own = await joinGraph(api, tables);
    const params = nodeAt(own, own.join);
    const headers = { 'idempotency-key': `execute-${own.datasetId}` };
    // Parallel retries: the first request queues the run; each other one replays its answer or, while it is still being queued, is 20-1034.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => api.call('executeDatasetNode', { params, body: { use_sample: true }, headers })),
    );
    const started = answers.filter((answer) => answer.status === 202);
    expect(started.length).toBeGreaterThan(0);
    for (const refused of answers.filter((answer) => answer.status !== 202))
      expect(refused.problem.code).toBe('20-1034');
    const jobIds = new Set(started.map((answer) => answer.body.execution?.job_id));
    expect(jobIds.size).toBe(1);
    expect(started.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const done = await waitForRun(api, own, own.join);
    expect(done).toMatchObject({ run_state: 'SUCCEEDED', execution: { job_id: [...jobIds][0] } });

    // After the run ended, a retry still names the same job instead of running again.
    const later = await api.call('executeDatasetNode', { params, body: { use_sample: true }, headers });
    expect(later.status).toBe(202);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.execution?.job_id).toBe(done.execution?.job_id);
    expect((await api.call('getDatasetNodeRunStatus', { params })).body.execution?.job_id).toBe(done.execution?.job_id);

    const other = await api.call('executeDatasetNode', { params, body: { use_sample: false }, headers });
    expect(other.status).toBe(400);
    expect(other.problem).toMatchObject({ code: '10-1400', extraDetails: { 'Idempotency-Key': expect.any(String) } });
  });
});
