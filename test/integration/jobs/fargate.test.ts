/**
 * The Fargate branch on the twin (issue 39): with FARGATE_ABOVE_BYTES at 0 every job's state
 * machine chooses `ecs:runTask.sync`, and the local ECS runs the worker's task entry point
 * (functions/jobs/fargate-task.ts) as a process of its own. Each job kind gives on that path what
 * it gives on Lambda, value for value.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { asBody } from '../../support/api-client';
import { getObject, listKeys, localS3, waitForDirectExport, waitForMultiPartExport } from '../../support/exports';
import { completedUpload, incompressibleParquet, presignedUpload } from '../../support/multi-part';
import {
  createObjectStoreConnection,
  importAndWait,
  tableOver,
  waitForJob,
  waitForVersion,
} from '../../support/imports';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import {
  alive,
  bigCsv,
  bothPaths,
  exportToNewTarget,
  closeFargateStack,
  PEOPLE_CSV,
  startFargateStack,
  runningBigImport,
  until,
} from './fargate-support';
import { CUSTOMERS_CSV, executeAndWait, importedTable, joinGraph, nodeAt, ordersCsv } from '../datasets/run-fixtures';
import { dimConnection, pricingTarget, transferAndWait, type TransferStack } from '../transfers/fixtures';

let stack: TransferStack;
let env: TestTwin;
let api: ApiClient;
/** Enough rows that an import on a task is still running when the test stops it. */
const BIG_ROWS = 600_000;
/** Rows of a source whose Parquet (~6.5 MiB) an export cuts into two S3 parts: 5 MiB and the rest. */
const TWO_PART_ROWS = 100_000;

beforeAll(async () => {
  stack = await startFargateStack({
    'in/people.csv': PEOPLE_CSV,
    'big/rows.csv': bigCsv(BIG_ROWS),
    'two-parts/data.parquet': await incompressibleParquet(TWO_PART_ROWS),
  });
  env = stack.env;
  api = env.admin;
}, 120_000);

afterAll(() => closeFargateStack(stack));

describe('jobs on the Fargate branch', () => {
  it('imports a version on a task, with the values of the Lambda import', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { lambda, fargate } = await bothPaths(() => importAndWait(api, tableId));
    expect(lambda.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    const preview = (versionNumber: number) =>
      api.call('previewDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } });
    const [a, b] = [await preview(lambda.version_number), await preview(fargate.version_number)];
    expect(b.status).toBe(200);
    expect({ ...b.body, version_number: 0 }).toEqual({ ...a.body, version_number: 0 });
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toEqual(['import-data-version']);
  }, 120_000);

  it('analyses a version’s schema on a task as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    // Two versions of the same data: a version is analysed fully once.
    const versions = [
      (await importAndWait(api, tableId)).version_number,
      (await importAndWait(api, tableId)).version_number,
    ];
    let next = 0;
    const { lambda, fargate } = await bothPaths(async () => {
      const params = { data_table_id: tableId, version_number: versions[next++]! };
      const started = await api.call('analyseDataVersionSchema', { params, body: { depth: 'FULL' } });
      expect(started.status, started.text).toBe(202);
      const status = await waitForJob(
        () => api.call('getSchemaAnalysisStatus', { params }),
        (body) => body.execution,
      );
      return { status, result: (await api.call('getSchemaAnalysisResult', { params })).body };
    });
    expect(lambda.status.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.status.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    const stable = (result: unknown) =>
      JSON.parse(JSON.stringify(result).replace(/"[a-z_]*(date|job_id)":"[^"]*"/g, '"x":0'));
    expect(stable(fargate.result)).toEqual(stable(lambda.result));
  }, 120_000);

  it('runs a recipe node and analyses it on a task as on Lambda', async () => {
    const tables = {
      orders: await importedTable(api, env, ordersCsv(500)),
      customers: await importedTable(api, env, CUSTOMERS_CSV),
    };
    // A graph for each path: a node is analysed fully once.
    const graphs = [await joinGraph(api, tables), await joinGraph(api, tables)];
    let next = 0;
    const { lambda, fargate } = await bothPaths(async () => {
      const graph = graphs[next++]!;
      const run = await executeAndWait(api, graph, graph.aggregate, false);
      const preview = await api.call('previewDatasetNode', { params: nodeAt(graph, graph.aggregate) });
      const analysed = await api.call('analyseDatasetNodeSchema', {
        params: nodeAt(graph, graph.join),
        body: { depth: 'FULL' },
      });
      expect(analysed.status, analysed.text).toBe(202);
      const analysis = await waitForJob(
        () => api.call('getDatasetNodeSchemaAnalysisStatus', { params: nodeAt(graph, graph.join), query: {} }),
        (body) => body.execution,
      );
      const result = await api.call('getDatasetNodeSchemaAnalysisResult', { params: nodeAt(graph, graph.join) });
      return { run, preview: preview.body, analysis, result: result.body };
    });
    expect(lambda.run.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.run.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(fargate.analysis.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    // The same rows and columns; the graphs are two datasets, so their ids differ.
    const rowsOf = (preview: object) =>
      Object.fromEntries(Object.entries(preview).filter(([key]) => !key.endsWith('_id')));
    expect(rowsOf(fargate.preview)).toEqual(rowsOf(lambda.preview));
    const stable = (result: unknown) =>
      JSON.parse(JSON.stringify(result).replace(/"[a-z_]*(date|job_id)":"[^"]*"/g, '"x":0'));
    expect(stable(fargate.result)).toEqual(stable(lambda.result));
  }, 120_000);

  it('exports a version directly and to a target on a task, byte for byte as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    let run = 0;
    const direct = await bothPaths(async () => {
      const key = `direct/${(run += 1)}.parquet`;
      const started = await api.call('startDirectExport', {
        body: asBody('startDirectExport', {
          source_type: 'datatable',
          source_id: tableId,
          source_version: versionNumber,
          bucket: 'exports',
          key,
          endpoint: env.twin.s3.endpoint,
          access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        }),
      });
      expect(started.status, started.text).toBe(202);
      const status = await waitForDirectExport(api, started.body.job_id);
      return { status, bytes: await getObject(env, 'exports', key) };
    });
    expect(direct.fargate.status.status).toEqual({ status: 'COMPLETED' });
    expect(direct.fargate.bytes.equals(direct.lambda.bytes)).toBe(true);

    const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    const toTarget = await bothPaths(async () => {
      const done = await exportToNewTarget(api, connectionId, `target-${(run += 1)}`, tableId, versionNumber);
      const keys = await listKeys(env, 'exports', `target-${run}/`);
      expect(keys).toHaveLength(1);
      return { done, bytes: await getObject(env, 'exports', keys[0]!) };
    });
    expect(toTarget.fargate.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(toTarget.lambda.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(toTarget.fargate.bytes.equals(toTarget.lambda.bytes)).toBe(true);
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toEqual(
      expect.arrayContaining(['export-direct', 'export-to-target']),
    );
  }, 120_000);

  it('exports a version in two parts on a task, part for part as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/two-parts/');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const s3 = localS3(env);
    let run = 0;
    try {
      const { lambda, fargate } = await bothPaths(async () => {
        const key = `multi/${(run += 1)}.parquet`;
        const { uploadId, urls } = await presignedUpload(s3, 'uploads', key, 2);
        const started = await api.call('startMultiPartExport', {
          body: asBody('startMultiPartExport', {
            source_type: 'datatable',
            source_id: tableId,
            source_version: versionNumber,
            parts_urls: urls,
          }),
        });
        expect(started.status, started.text).toBe(202);
        const status = await waitForMultiPartExport(api, started.body.job_id);
        expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 2 });
        const bytes = await completedUpload(env, s3, { bucket: 'uploads', key, uploadId }, status.result);
        return { result: status.result, bytes };
      });
      // Two parts, the first of S3's least 5 MiB: the same ETags (MD5s of the parts), the same object.
      expect(fargate.result.map((part) => part.part_number)).toEqual([1, 2]);
      expect(fargate.result).toEqual(lambda.result);
      expect(fargate.bytes.length).toBeGreaterThan(5 * 2 ** 20);
      expect(fargate.bytes.equals(lambda.bytes)).toBe(true);
      expect(env.twin.ecs.tasks().map((task) => task.worker)).toContain('export-multi-part');
    } finally {
      s3.destroy();
    }
  }, 120_000);

  it('transfers a version to the pricing system on a task, row for row as on Lambda', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/in/people.csv');
    const { version_number: versionNumber } = await importAndWait(api, tableId);
    const connectionId = await dimConnection(api, stack.dim);
    const { lambda, fargate } = await bothPaths(async () => {
      const target = await pricingTarget(api, connectionId);
      const done = await transferAndWait(
        api,
        asBody('startTransfer', {
          target_id: target.id,
          source_type: 'datatable',
          source_id: tableId,
          source_version: versionNumber,
        }),
      );
      const committed =
        target.type === 'pricing' ? stack.dim.committed(target.project_path, target.table_path) : undefined;
      return { done, committed };
    });
    expect(lambda.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'lambda' });
    expect(fargate.done.execution).toMatchObject({ status: 'COMPLETED', runs_on: 'fargate' });
    expect(fargate.done).toMatchObject({ rows_total: 3, rows_sent: 3, rows_accepted: 3 });
    expect(fargate.done.columns).toEqual(lambda.done.columns);
    expect(fargate.committed?.rows).toHaveLength(3);
    expect(fargate.committed).toEqual(lambda.committed);
    expect(env.twin.ecs.tasks().map((task) => task.worker)).toContain('transfer-to-pricing');
  }, 90_000);

  it('a task killed with SIGKILL mid-run ends FAILED 10-500 saying so, with no scratch files and no data', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/big/rows.csv');
    const { versionNumber, pid, scratch } = await runningBigImport(env, tableId);
    process.kill(pid, 'SIGKILL');
    const version = await waitForVersion(api, tableId, versionNumber);
    expect(version.execution).toMatchObject({
      status: 'FAILED',
      runs_on: 'fargate',
      error: { code: '10-500', cause: expect.stringMatching(/exit code 137 \(killed\)/) },
    });
    expect(existsSync(scratch)).toBe(false);
    const preview = await api.call('previewDataVersion', {
      params: { data_table_id: tableId, version_number: versionNumber },
    });
    expect(preview.status).not.toBe(200);
  }, 90_000);

  it('cancelling a job stops its task’s process within seconds', async () => {
    const tableId = await tableOver(api, env, 'fargate-src/big/rows.csv');
    const { versionNumber, pid, scratch } = await runningBigImport(env, tableId);
    const cancelled = await api.call('cancelDataVersionImport', {
      params: { data_table_id: tableId, version_number: versionNumber },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const stoppedAt = Date.now();
    await until(() => (alive(pid) ? undefined : true), 5_000, 'the task process ended');
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    await until(() => (existsSync(scratch) ? undefined : true), 5_000, 'the task scratch removed');
    expect(env.twin.ecs.tasks().find((task) => task.scratch === scratch)?.lastStatus).toBe('STOPPED');
    expect((await waitForVersion(api, tableId, versionNumber)).execution.status).toBe('ABORTED');
  }, 90_000);
});
