/**
 * Column lineage over the API: a graph of two imported tables, a join recipe and an aggregate
 * on top (run-fixtures.ts), its lineage per node, one output column followed back to the
 * source objects, the Mermaid picture, and what is downstream of a data version. Then the
 * OpenLineage run events the jobs sent meanwhile to a receiver (the twin's --openlineage-url),
 * each valid against the project's schema and, where CI keeps them, the official ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataVersions } from '../../../shared/data-tables/versions';
import { runIdOf } from '../../../shared/openlineage/build';
import { deliveryCounts } from '../../../shared/openlineage/emit';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { startLineageReceiver, type LineageReceiver } from '../../support/lineage-receiver';
import { importAndWait, importCompleted, putObjects, tableOver } from '../../support/imports';
import { OPENLINEAGE_SCHEMAS_PRESENT, openLineageValidator } from '../../support/openlineage-schemas';
import {
  CUSTOMERS_CSV,
  executeAndWait,
  importedTable,
  joinGraph,
  nodeAt,
  ordersCsv,
  type JoinGraph,
} from '../datasets/run-fixtures';
import { lastSignOfLifeAnHourAgo } from '../../support/abandoned-job';

let env: TestTwin;
let api: ApiClient;
let graph: JoinGraph;
let tables: { orders: number; customers: number };

/** The twin's --openlineage-url. */
let receiver: LineageReceiver;

beforeAll(async () => {
  receiver = await startLineageReceiver();
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10, openLineageUrl: receiver.url });
  api = env.admin;
  const toggle = await env.platformAdmin.call('setFeatureToggleDefault', {
    params: { toggle_name: 'openlineage' },
    body: { strategy: 'on' },
  });
  expect(toggle.status, toggle.text).toBe(200);
  const quality = await env.platformAdmin.call('setFeatureToggleDefault', {
    params: { toggle_name: 'data_quality' },
    body: { strategy: 'on' },
  });
  expect(quality.status, quality.text).toBe(200);
  // Each instance reads the toggles at most this often (shared/features/store.ts).
  await sleep(2_100);
  const [orders, customers] = await Promise.all([
    importedTable(api, env, ordersCsv(20)),
    importedTable(api, env, CUSTOMERS_CSV),
  ]);
  tables = { orders, customers };
  graph = await joinGraph(api, tables);
}, 120_000);

afterAll(async () => {
  await env?.close();
  await new Promise((resolve) => receiver?.server.close(resolve));
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

describe('OpenLineage run events', () => {
  const events = () => receiver.events();
  const ofKind = (kind: string) => events().filter((event) => event.job.name === `local.${kind}`);

  it('an import sends START and COMPLETE: its source object in, the data table with its schema out', async () => {
    const imports = ofKind('import');
    const complete = imports.find(
      (event) => event.eventType === 'COMPLETE' && event.outputs[0]?.name.endsWith(`/data-tables/${tables.orders}`),
    );
    expect(complete, JSON.stringify(imports)).toBeDefined();
    expect(imports.some((event) => event.eventType === 'START' && event.run.runId === complete!.run.runId)).toBe(true);
    expect(complete!.inputs).toEqual([{ namespace: 's3://landing', name: expect.stringMatching(/^runs-/) }]);
    expect(complete!.outputs[0]?.facets?.schema?.fields.map((field) => field.name)).toEqual([
      'id',
      'customer_id',
      'amount',
    ]);
  });

  it('a recipe run sends its outputs with the column-lineage facet, and its nodes’ data-quality results', async () => {
    const rule = await api.call('createQualityRule', {
      body: {
        dataset_id: graph.datasetId,
        node_id: graph.aggregate,
        name: 'some customers',
        kind: 'row_count_between',
        severity: 'error',
        min: 1,
      },
    });
    expect(rule.status, rule.text).toBe(201);
    expect((await executeAndWait(api, graph, graph.aggregate, false)).execution?.status).toBe('COMPLETED');
    await sleep(500);
    const complete = ofKind('recipe-run').find((event) => event.eventType === 'COMPLETE');
    expect(complete).toBeDefined();
    const aggregate = complete!.outputs.find((output) => output.name.endsWith(`/nodes/${graph.aggregate}`));
    expect(aggregate?.facets?.columnLineage?.fields.total?.inputFields).toEqual([
      {
        namespace: 'dps://data-preparation-service',
        name: `local/datasets/${graph.datasetId}/versions/1/nodes/${graph.join}`,
        field: 'amount',
        transformations: [{ type: 'DIRECT', subtype: 'AGGREGATION' }],
      },
    ]);
    expect(aggregate?.facets?.dataQualityAssertions?.assertions).toEqual([
      {
        assertion: 'row_count_between',
        success: true,
        severity: 'error',
        name: 'some customers',
        actual: expect.stringMatching(/^\d+$/),
        params: { rule_id: rule.body.id },
      },
    ]);
    // The join has no rules: no facet.
    const join = complete!.outputs.find((output) => output.name.endsWith(`/nodes/${graph.join}`));
    expect(join?.facets?.dataQualityAssertions).toBeUndefined();
    expect(complete!.inputs.map((input) => input.name).sort()).toEqual(
      [`local/data-tables/${tables.orders}`, `local/data-tables/${tables.customers}`].sort(),
    );
  });

  it('an import whose data-quality rules ran sends their results in the data-quality facet', async () => {
    await putObjects(env, 'landing', { [`checked-${process.pid}/data.csv`]: 'id,name\n1,ada\n2,\n3,cy\n' });
    const tableId = await tableOver(api, env, `landing/checked-${process.pid}/`);
    const rule = await api.call('createQualityRule', {
      body: { data_table_id: tableId, name: 'name present', kind: 'not_null', severity: 'warn', column: 'name' },
    });
    expect(rule.status, rule.text).toBe(201);
    await importCompleted(api, tableId);
    await sleep(500);
    const complete = ofKind('import').find(
      (event) => event.eventType === 'COMPLETE' && event.outputs[0]?.name.endsWith(`/data-tables/${tableId}`),
    );
    expect(complete?.outputs[0]?.facets?.dataQualityAssertions?.assertions).toEqual([
      {
        assertion: 'not_null',
        success: false,
        severity: 'warn',
        name: 'name present',
        actual: '1',
        params: { rule_id: rule.body.id },
      },
    ]);
    // A table without rules: no facet.
    const unchecked = ofKind('import').find(
      (event) => event.eventType === 'COMPLETE' && event.outputs[0]?.name.endsWith(`/data-tables/${tables.orders}`),
    );
    expect(unchecked?.outputs[0]?.facets?.dataQualityAssertions).toBeUndefined();
  });

  it('a failed job sends FAIL with the error facet, for the run its START named', async () => {
    const tableId = await tableOver(api, env, `landing/nothing-here-${process.pid}/`);
    expect((await importAndWait(api, tableId)).execution.status).toBe('FAILED');
    await sleep(500);
    const start = ofKind('import').find(
      (event) => event.eventType === 'START' && event.outputs[0]?.name.endsWith(`/data-tables/${tableId}`),
    );
    const failed = ofKind('import').filter(
      (event) => event.eventType === 'FAIL' && event.run.runId === start?.run.runId,
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]?.run.facets?.errorMessage?.message).toMatch(/^\d{2}-\d+: /);
    expect(failed[0]?.job.facets?.jobType.emissionPattern?.eventContentMode).toBe('ACCUMULATIVE');
  });

  it('a cancelled job sends ABORT once, however often it is cancelled', async () => {
    const tableId = await tableOver(api, env, `landing/checked-${process.pid}/`);
    // A PENDING import no worker picks up: the cancel always finds it running.
    const { version, job } = await dataVersions.begin('local', { id: 'test' }, tableId);
    const params = { data_table_id: tableId, version_number: version.version_number };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const cancelled = await api.call('cancelDataVersionImport', { params });
      expect(cancelled.body.execution?.status, cancelled.text).toBe('ABORTED');
    }
    await sleep(500);
    const aborts = ofKind('import').filter((event) => event.run.runId === runIdOf(job.job_id));
    expect(aborts.map((event) => event.eventType)).toEqual(['ABORT']);
    expect(aborts[0]?.run.facets?.errorMessage?.message).toMatch(/^10-444: /);
  });

  it('a job a reader finds abandoned sends FAIL once, from the write that recorded it', async () => {
    const tableId = await tableOver(api, env, `landing/checked-${process.pid}/`);
    const { job } = await dataVersions.begin('local', { id: 'test' }, tableId);
    // The worker's last sign of life was an hour ago.
    await lastSignOfLifeAnHourAgo(job.subject);
    // Two imports race to take the table over: each records the abandoned one's failure, one write wins.
    await Promise.all([1, 2].map(() => api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } })));
    await sleep(1_000);
    const ended = ofKind('import').filter((event) => event.run.runId === runIdOf(job.job_id));
    expect(ended.map((event) => event.eventType)).toEqual(['FAIL']);
    expect(ended[0]?.run.facets?.errorMessage?.message).toMatch(/^10-1047: /);
  });

  it('a delivery that fails is retried, then counted: the job is not slowed or failed', async () => {
    receiver.refusing = true;
    const failedBefore = deliveryCounts.failed;
    await putObjects(env, 'landing', { [`refused-${process.pid}/data.csv`]: CUSTOMERS_CSV });
    const tableId = await tableOver(api, env, `landing/refused-${process.pid}/`);
    await importCompleted(api, tableId);
    await sleep(2_000);
    receiver.refusing = false;
    expect(deliveryCounts.failed).toBeGreaterThanOrEqual(failedBefore + 2);
  });

  it('every event is valid, and carries no secret', () => {
    expect(receiver.accepted.length).toBeGreaterThan(6);
    const validator = OPENLINEAGE_SCHEMAS_PRESENT ? openLineageValidator() : undefined;
    for (const event of receiver.accepted) {
      expect(validator?.problems(event) ?? [], JSON.stringify(event)).toEqual([]);
      expect(JSON.stringify(event)).not.toMatch(/S3RVER|secret|password|X-Amz-Signature/i);
    }
  });
});
