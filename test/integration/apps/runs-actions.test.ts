/**
 * The service's run actions (docs/apps.md, "Runs") over HTTP, each carried out with the app's
 * credentials through the same domain modules as the routes that do the same thing: a table
 * version's preview, a dataset node's run (its status then read on the node's run-status route
 * with the SDK token) and an export to a target (read on GET /exports/{id}). Input the action's
 * kind refuses is 10-1400 naming each field; an action the app's roles do not grant is 80-8030.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { asBody, ApiClient, type RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createObjectStoreConnection, waitForJob } from '../../support/imports';
import {
  CUSTOMERS_CSV,
  importedTable,
  joinGraph,
  ordersCsv,
  waitForRun,
  type JoinGraph,
} from '../datasets/run-fixtures';
import { appsClient, bundleWith, expectProblem, installed, opened, sampleFiles, sampleManifest } from './app-support';

const TENANT = 'apps-actions';

const ACTIONS = [
  { name: 'preview', kind: 'preview_data_table' },
  { name: 'run-node', kind: 'run_dataset_node' },
  { name: 'export', kind: 'start_export' },
];

let env: TestTwin;
let admin: ApiClient;
let orders: number;
let graph: JoinGraph;
let targetId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing', 'exports'], retryIntervalMs: 10 });
  admin = await appsClient(env, TENANT);
  orders = await importedTable(admin, env, ordersCsv(30));
  const customers = await importedTable(admin, env, CUSTOMERS_CSV);
  graph = await joinGraph(admin, { orders, customers });
  const connectionId = await createObjectStoreConnection(admin, env, { pathRestriction: 'exports/', write: true });
  const target = await admin.call('createTarget', {
    body: asBody('createTarget', {
      name: 'lake',
      type: 'bucket',
      connection_id: connectionId,
      path: 'exports/{dataset_name}/v{version}/',
    }),
  });
  expect(target.status, target.text).toBe(201);
  targetId = target.body.id;
});
afterAll(() => env?.close());

/** A bundle whose manifest asks for `roles` and declares ACTIONS, installed and opened by the admin: the app's client. */
async function appWith(name: string, roles: string[]): Promise<{ bundleId: number; app: ApiClient }> {
  const manifest = sampleManifest({ roles, run_actions: ACTIONS });
  const bundleId = await bundleWith(admin, name, sampleFiles({ 'manifest.json': manifest }));
  await installed(admin, bundleId);
  const { sdkToken } = await opened(admin, bundleId);
  return { bundleId, app: new ApiClient(env.twin.apiUrl, sdkToken, TENANT) };
}

let workbench: { bundleId: number; app: ApiClient };
beforeAll(async () => {
  workbench = await appWith('Workbench', ['editor']);
});

const run = (
  app: ApiClient,
  bundleId: number,
  action: string,
  input: NonNullable<RequestBody<'startAppRun'>['input']>,
) => app.call('startAppRun', { params: { bundle_id: bundleId }, body: { action, input } });

describe('preview_data_table', () => {
  it('answers the first rows of a table version, as the preview route does', async () => {
    const { app, bundleId } = workbench;
    const previewed = await run(app, bundleId, 'preview', { data_table_id: orders, version_number: 1, row_limit: 3 });
    expect(previewed.status, previewed.text).toBe(201);
    expect(previewed.body).toMatchObject({ status: 'COMPLETED', error: null });
    const direct = await admin.call('previewDataVersion', { params: { data_table_id: orders, version_number: 1 } });
    expect(previewed.body.result).toEqual({
      data_table_id: orders,
      version_number: 1,
      row_count: 30,
      columns: direct.body.columns,
      rows: direct.body.rows.slice(0, 3),
    });
  });

  it('keeps a run that the domain refuses as FAILED with the route’s code', async () => {
    const { app, bundleId } = workbench;
    const missing = await run(app, bundleId, 'preview', { data_table_id: orders, version_number: 9 });
    expect(missing.status, missing.text).toBe(201);
    const direct = await admin.call('previewDataVersion', { params: { data_table_id: orders, version_number: 9 } });
    expect(missing.body).toMatchObject({ status: 'FAILED', result: null, error: { code: direct.problem.code } });
    const read = await admin.call('getAppRun', { params: { bundle_id: bundleId, run_id: missing.body.run_id } });
    expect(read.body).toEqual(missing.body);
  });

  it('refuses input its kind does not take (10-1400), naming each field', async () => {
    const { app, bundleId } = workbench;
    const refused = await run(app, bundleId, 'preview', { data_table_id: 'orders', row_limit: 500, drop: true });
    expectProblem(refused, 400, '10-1400');
    expect(Object.keys(refused.problem.extraDetails ?? {}).sort()).toEqual([
      'input.data_table_id',
      'input.drop',
      'input.row_limit',
      'input.version_number',
    ]);
  });
});

describe('run_dataset_node', () => {
  it('starts the node’s run as the app; its status is read on the node’s run-status route', async () => {
    const { app, bundleId } = workbench;
    const node = { dataset_id: graph.datasetId, version_number: 1, node_id: graph.join };
    const started = await run(app, bundleId, 'run-node', { ...node, use_sample: true });
    expect(started.status, started.text).toBe(201);
    expect(started.body.status).toBe('COMPLETED');
    const { execution } = z
      .object({ run_state: z.enum(['QUEUED', 'RUNNING']), execution: z.object({ job_id: z.string() }) })
      .parse(started.body.result);
    const ended = await waitForRun(app, graph, graph.join);
    expect(ended).toMatchObject({ run_state: 'SUCCEEDED', execution: { job_id: execution.job_id } });

    const refused = await run(app, bundleId, 'run-node', { ...node, node_id: 'join', use_sample: 'yes' });
    expectProblem(refused, 400, '10-1400');
    expect(refused.problem.extraDetails).toHaveProperty(['input.node_id']);
    expect(refused.problem.extraDetails).toHaveProperty(['input.use_sample']);
  });
});

describe('start_export', () => {
  it('starts an export of a table version to a target as the app; it is read on GET /exports/{id}', async () => {
    const { app, bundleId } = workbench;
    const started = await run(app, bundleId, 'export', {
      target_id: targetId,
      source_type: 'datatable',
      source_id: orders,
      source_version: 1,
    });
    expect(started.status, started.text).toBe(201);
    const { export_id: exportId } = z.object({ export_id: z.int() }).parse(started.body.result);
    const done = await waitForJob(
      () => app.call('getExport', { params: { export_id: exportId } }),
      (body) => body.execution,
    );
    expect(done).toMatchObject({ target_id: targetId, source_id: orders, execution: { status: 'COMPLETED' } });

    const refused = await run(app, bundleId, 'export', { source_type: 'datatable', source_id: orders });
    expectProblem(refused, 400, '10-1400');
    expect(refused.problem.extraDetails).toHaveProperty(['input.target_id']);
  });
});

describe('the app’s roles', () => {
  it('must grant what the action needs: a viewer app previews, but neither runs nodes nor exports (80-8030)', async () => {
    const { app, bundleId } = await appWith('Reader', ['viewer']);
    const previewed = await run(app, bundleId, 'preview', { data_table_id: orders, version_number: 1 });
    expect(previewed.body.status, previewed.text).toBe('COMPLETED');
    const node = { dataset_id: graph.datasetId, version_number: 1, node_id: graph.aggregate, use_sample: true };
    for (const [action, input] of [
      ['run-node', node],
      ['export', { target_id: targetId, source_type: 'datatable', source_id: orders, source_version: 1 }],
    ] as const) {
      const refused = await run(app, bundleId, action, input);
      expectProblem(refused, 403, '80-8030');
      expect(refused.problem.extraDetails).toMatchObject({ required_permission: 'data:write' });
    }
    const status = await admin.call('getDatasetNodeRunStatus', {
      params: { dataset_id: graph.datasetId, version_number: 1, node_id: graph.aggregate },
    });
    expectProblem(status, 400, '20-1013');
  });
});
