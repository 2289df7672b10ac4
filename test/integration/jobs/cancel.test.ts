/**
 * Cancelling a running job, for every kind a user starts (docs/decisions.md, "Cancelling a
 * job"): each job is held on a read of its input (the S3 gate), cancelled twice at once, and
 * then its worker must have stopped within seconds, its execution read ABORTED (10-444) and
 * stay so, nothing it wrote be visible, its CPU time be counted, and reading its output
 * answer 10-444. One twin for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startPricingDim, type PricingDimFake } from '../../../infra/local/fakes/pricing-dim';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { importJob, schemaAnalysisJob } from '../../../shared/data-tables/jobs';
import { nodeSchemaAnalysisJob, recipeRunJob } from '../../../shared/datasets/jobs';
import { directExportJob, multiPartExportJob, targetExportJob } from '../../../shared/exports/jobs';
import { transferJob } from '../../../shared/transfers/jobs';
import { asBody, type ApiClient } from '../../support/api-client';
import { executeAndWait, joinGraph, nodeAt, CUSTOMERS_CSV } from '../datasets/run-fixtures';
import { dimConnection, pricingTarget, transferRequest, turnOn } from '../transfers/fixtures';
import { listKeys, localS3 } from '../../support/exports';
import {
  createBucketSource,
  createObjectStoreConnection,
  createTable,
  importCompleted,
  putObjects,
  startImport,
  tableOver,
  waitForJob,
} from '../../support/imports';
import {
  cancelTwice,
  cpuSecondsToday,
  expectAborted,
  expectStopped,
  startGatedTwin,
  type GatedTwin,
} from './cancel-support';

const TENANT = 'cancel-jobs';
const CSV = 'id,name,amount\n1,ada,10\n2,bob,20\n3,cy,30\n';
const ORDERS_CSV = 'id,customer_id,amount\n1,1,10\n2,2,20\n3,1,30\n4,3,40\n';

let stack: GatedTwin;
let dim: PricingDimFake;
let api: ApiClient;

beforeAll(async () => {
  dim = await startPricingDim();
  stack = await startGatedTwin([dim.host, dim.tokenUrl].map((url) => new URL(url).host));
  api = await stack.env.clientFor(TENANT, ['admin']);
});
afterAll(async () => {
  await stack?.close();
  await dim?.stop();
});

const versionOf = (tableId: number, versionNumber = 1) => ({ data_table_id: tableId, version_number: versionNumber });

/** A table whose one version imported `csv` (COMPLETED). */
async function importedTable(folder: string, csv = CSV): Promise<number> {
  await putObjects(stack.env, 'landing', { [`${folder}/data.csv`]: csv });
  const tableId = await tableOver(api, stack.env, `landing/${folder}/`);
  await importCompleted(api, tableId);
  return tableId;
}

describe('cancelling an import', () => {
  it('ends it ABORTED, stops its worker, keeps no data and counts its CPU; a retry answers the same', async () => {
    const { env, gate } = stack;
    await putObjects(env, 'landing', { 'cancel-import/data.csv': CSV });
    // The source is read through the gate, which holds the read: a slow source.
    const connectionId = await createObjectStoreConnection(api, env, { endpoint: gate.endpoint });
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/cancel-import/'));
    const held = gate.holdRead('/cancel-import/data.csv');
    const cpuBefore = await cpuSecondsToday(env, TENANT);
    const versionNumber = await startImport(api, tableId);
    await held.arrived;
    const params = versionOf(tableId, versionNumber);

    const cancelled = await cancelTwice(
      () => api.call('cancelDataVersionImport', { params }),
      (version) => version.execution.status,
    );
    expect(cancelled.execution.error?.code).toBe('10-444');
    expect(cancelled.execution.ended_date).not.toBeNull();
    await expectStopped(env, held, importJob, cancelled.execution.job_id);

    // Still ABORTED once the worker stopped: its failure path did not make it FAILED.
    const version = await api.call('getDataVersion', { params });
    expect(version.body.execution).toMatchObject({ status: 'ABORTED', error: { code: '10-444' } });
    const listed = await api.call('listDataVersions', { params: { data_table_id: tableId } });
    expect(listed.body.items.map((item) => item.execution.status)).toEqual(['ABORTED']);
    expect(
      (await api.call('getDataTable', { params: { data_table_id: tableId } })).body.latest_data_version,
    ).toMatchObject({ execution: { status: 'ABORTED' } });
    expectAborted(await api.call('previewDataVersion', { params }));
    expectAborted(await api.call('sampleDataVersion', { params, query: {} }));
    expectAborted(await api.call('analyseDataVersionSchema', { params, body: { depth: 'SHALLOW' } }));
    expect(await listKeys(env, DATA_BUCKET, `${TENANT}/tables/${tableId}/`)).toEqual([]);
    expect(await cpuSecondsToday(env, TENANT)).toBeGreaterThan(cpuBefore);

    // A retried cancel answers as the first; the table takes a new import at once.
    const again = await api.call('cancelDataVersionImport', { params });
    expect(again.status).toBe(200);
    expect(again.body.execution).toEqual(version.body.execution);
    expect(await startImport(api, tableId)).toBe(versionNumber + 1);
  });

  it('refuses to cancel an import that completed: 409 90-1001 naming its status', async () => {
    const tableId = await importedTable('cancel-completed');
    const refused = await api.call('cancelDataVersionImport', { params: versionOf(tableId) });
    expect(refused.status).toBe(409);
    expect(refused.problem.code).toBe('90-1001');
    expect(refused.problem.extraDetails).toMatchObject({ status: 'COMPLETED' });
    expect((await api.call('getDataVersion', { params: versionOf(tableId) })).body.execution.status).toBe('COMPLETED');
  });

  it('is 10-404 for a version of another tenant', async () => {
    const tableId = await importedTable('cancel-other-tenant');
    const stranger = await stack.env.clientFor('cancel-stranger', ['admin']);
    const refused = await stranger.call('cancelDataVersionImport', { params: versionOf(tableId) });
    expect(refused.status).toBe(404);
  });
});

describe('cancelling a schema analysis of a data version', () => {
  it('ends it ABORTED, stops its worker, and its result answers 10-444 while none succeeded', async () => {
    const { env, gate } = stack;
    const tableId = await importedTable('cancel-analysis');
    const params = versionOf(tableId);
    const held = gate.holdRead(`/${TENANT}/tables/${tableId}/v1/data.parquet`);
    const started = await api.call('analyseDataVersionSchema', { params, body: { depth: 'FULL' } });
    expect(started.status, started.text).toBe(202);
    await held.arrived;

    const cancelled = await cancelTwice(
      () => api.call('cancelSchemaAnalysis', { params }),
      (status) => status.execution.status,
    );
    await expectStopped(env, held, schemaAnalysisJob, cancelled.execution.job_id);
    const status = await api.call('getSchemaAnalysisStatus', { params });
    expect(status.body).toMatchObject({ execution: { status: 'ABORTED', error: { code: '10-444' } } });
    expect(status.body.depth).toBeUndefined();
    expectAborted(await api.call('getSchemaAnalysisResult', { params }));
    expect(await listKeys(env, DATA_BUCKET, `${TENANT}/tables/${tableId}/v1/analysis`)).toEqual([]);

    // The version itself is untouched, and a new analysis may start.
    expect((await api.call('getDataVersion', { params })).body.execution.status).toBe('COMPLETED');
    const next = await api.call('analyseDataVersionSchema', { params, body: { depth: 'SHALLOW' } });
    expect(next.status, next.text).toBe(202);
    const done = await waitForJob(
      () => api.call('getSchemaAnalysisStatus', { params }),
      (body) => body.execution,
    );
    expect(done.execution.status).toBe('COMPLETED');
    expect((await api.call('cancelSchemaAnalysis', { params })).problem.code).toBe('90-1001');
  });
});

/** The key part of a table's version 1 data file, as the gate sees its reads. */
const tableData = (tableId: number) => `/${TENANT}/tables/${tableId}/v1/data.parquet`;

describe('cancelling a node run', () => {
  it('aborts the whole job: its target and the nodes it had not built read ABORTED, with no output', async () => {
    const { env, gate } = stack;
    const orders = await importedTable('cancel-run-orders', ORDERS_CSV);
    const customers = await importedTable('cancel-run-customers', CUSTOMERS_CSV);
    const graph = await joinGraph(api, { orders, customers });
    // The run of the aggregate builds the join first: held while it downloads the orders.
    const held = gate.holdRead(tableData(orders));
    const cpuBefore = await cpuSecondsToday(env, TENANT);
    const started = await api.call('executeDatasetNode', {
      params: nodeAt(graph, graph.aggregate),
      body: { use_sample: false },
    });
    expect(started.status, started.text).toBe(202);
    await held.arrived;

    const cancelled = await cancelTwice(
      () => api.call('cancelDatasetNodeRun', { params: nodeAt(graph, graph.aggregate) }),
      (status) => status.run_state,
    );
    expect(cancelled.execution).toMatchObject({ status: 'ABORTED', error: { code: '10-444' } });
    await expectStopped(env, held, recipeRunJob, cancelled.execution!.job_id);
    expect(await cpuSecondsToday(env, TENANT)).toBeGreaterThan(cpuBefore);

    for (const node of [graph.join, graph.aggregate]) {
      const status = await api.call('getDatasetNodeRunStatus', { params: nodeAt(graph, node) });
      expect(status.body).toMatchObject({ run_state: 'ABORTED', execution: { status: 'ABORTED' }, metadata: null });
      expectAborted(await api.call('previewDatasetNode', { params: nodeAt(graph, node), query: {} }));
    }
    expectAborted(await api.call('getDatasetNodeSchemaAnalysisResult', { params: nodeAt(graph, graph.aggregate) }));
    expect(await listKeys(env, DATA_BUCKET, `${TENANT}/datasets/${graph.datasetId}/`)).toEqual([]);
    // Cancelling through the node the job built first names the same job: the same answer.
    const viaJoin = await api.call('cancelDatasetNodeRun', { params: nodeAt(graph, graph.join) });
    expect(viaJoin.status, viaJoin.text).toBe(200);
    expect(viaJoin.body.execution?.job_id).toBe(cancelled.execution?.job_id);
  });
});

describe('cancelling a schema analysis of a node’s output', () => {
  it('ends it ABORTED and keeps the analysis the run made', async () => {
    const { env, gate } = stack;
    const orders = await importedTable('cancel-node-analysis-orders', ORDERS_CSV);
    const customers = await importedTable('cancel-node-analysis-customers', CUSTOMERS_CSV);
    const graph = await joinGraph(api, { orders, customers });
    expect((await executeAndWait(api, graph, graph.join, false)).run_state).toBe('SUCCEEDED');
    const params = nodeAt(graph, graph.join);
    const held = gate.holdRead(`/${TENANT}/datasets/${graph.datasetId}/g1/nodes/${graph.join}/full/data.parquet`);
    const started = await api.call('analyseDatasetNodeSchema', { params, body: { depth: 'FULL' } });
    expect(started.status, started.text).toBe(202);
    await held.arrived;

    const cancelled = await cancelTwice(
      () => api.call('cancelDatasetNodeSchemaAnalysis', { params }),
      (status) => status.execution.status,
    );
    await expectStopped(env, held, nodeSchemaAnalysisJob, cancelled.execution.job_id);
    const status = await api.call('getDatasetNodeSchemaAnalysisStatus', { params, query: {} });
    expect(status.body).toMatchObject({
      execution: { status: 'ABORTED', error: { code: '10-444' } },
      depth: 'SHALLOW',
    });
    // The run's own analysis of the output stays readable; the output itself is untouched.
    expect((await api.call('getDatasetNodeSchemaAnalysisResult', { params })).status).toBe(200);
    expect((await api.call('previewDatasetNode', { params, query: {} })).status).toBe(200);
  });
});

describe('cancelling exports', () => {
  it('cancels a direct export: ABORTED with 10-444, nothing written to the bucket', async () => {
    const { env, gate } = stack;
    const tableId = await importedTable('cancel-direct');
    const held = gate.holdRead(tableData(tableId));
    const started = await api.call('startDirectExport', {
      body: asBody('startDirectExport', {
        source_type: 'datatable',
        source_id: tableId,
        source_version: 1,
        bucket: 'exports',
        key: 'cancel-direct/out.parquet',
        endpoint: env.twin.s3.endpoint,
        access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
        secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      }),
    });
    expect(started.status, started.text).toBe(202);
    await held.arrived;
    const params = { job_id: started.body.job_id };
    const cancelled = await cancelTwice(
      () => api.call('cancelDirectExport', { params }),
      (status) => status.status.status,
    );
    expect(cancelled.status.error_code).toBe('10-444');
    await expectStopped(env, held, directExportJob, started.body.job_id);
    expect((await api.call('getDirectExport', { params })).body.status.status).toBe('ABORTED');
    expect(await listKeys(env, 'exports', 'cancel-direct/')).toEqual([]);
  });

  it('cancels a multi-part export: ABORTED, without ETags to complete the upload with', async () => {
    const { env, gate } = stack;
    const tableId = await importedTable('cancel-multi-part');
    const s3 = localS3(env);
    try {
      const key = 'cancel-multi-part/out.parquet';
      const { UploadId: uploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'exports', Key: key }));
      const url = await getSignedUrl(
        s3,
        new UploadPartCommand({ Bucket: 'exports', Key: key, UploadId: uploadId, PartNumber: 1 }),
        { expiresIn: 600 },
      );
      const held = gate.holdRead(tableData(tableId));
      const started = await api.call('startMultiPartExport', {
        body: asBody('startMultiPartExport', {
          source_type: 'datatable',
          source_id: tableId,
          source_version: 1,
          parts_urls: [url],
        }),
      });
      expect(started.status, started.text).toBe(202);
      await held.arrived;
      const params = { job_id: started.body.job_id };
      const cancelled = await cancelTwice(
        () => api.call('cancelMultiPartExport', { params }),
        (status) => status.status,
      );
      expect(cancelled).toMatchObject({ error_code: '10-444', result: [] });
      await expectStopped(env, held, multiPartExportJob, started.body.job_id);
      // No ETags: the caller has nothing to complete the upload with, and aborts it at the store.
      expect((await api.call('getMultiPartExport', { params })).body).toMatchObject({ status: 'ABORTED', result: [] });
    } finally {
      s3.destroy();
    }
  });

  it('cancels an export to a target: ABORTED, its target released, nothing at the target', async () => {
    const { env, gate } = stack;
    const tableId = await importedTable('cancel-target');
    const connectionId = await createObjectStoreConnection(api, env, { write: true });
    const target = await api.call('createTarget', {
      body: asBody('createTarget', {
        name: 'cancel-lake',
        type: 'bucket',
        connection_id: connectionId,
        path: 'exports/cancel-target/',
      }),
    });
    expect(target.status, target.text).toBe(201);
    const held = gate.holdRead(tableData(tableId));
    const started = await api.call('createExport', {
      body: asBody('createExport', {
        target_id: target.body.id,
        source_type: 'datatable',
        source_id: tableId,
        source_version: 1,
      }),
    });
    expect(started.status, started.text).toBe(202);
    await held.arrived;
    const params = { export_id: started.body.export_id };
    const cancelled = await cancelTwice(
      () => api.call('cancelExport', { params }),
      (body) => body.execution.status,
    );
    await expectStopped(env, held, targetExportJob, cancelled.execution.job_id);
    expect(await listKeys(env, 'exports', 'cancel-target/')).toEqual([]);
    // The target is free again: it may change at once (30-6005 while an export holds it).
    const current = await api.call('getTarget', { params: { target_id: target.body.id } });
    const renamed = await api.call('updateTarget', {
      params: { target_id: target.body.id },
      body: asBody('updateTarget', { ...current.body, name: 'cancel-lake-2' }),
    });
    expect(renamed.status, renamed.text).toBe(200);
  });
});

describe('cancelling a transfer', () => {
  it('ends it ABORTED before any row went, and releases its target', async () => {
    const { env, gate } = stack;
    await turnOn(env, TENANT, 'transfers');
    const tableId = await importedTable('cancel-transfer');
    const target = await pricingTarget(api, await dimConnection(api, dim));
    const held = gate.holdRead(tableData(tableId));
    const started = await api.call('startTransfer', {
      body: transferRequest(target.id, { source_type: 'datatable', source_id: tableId, source_version: 1 }),
    });
    expect(started.status, started.text).toBe(202);
    await held.arrived;
    const params = { transfer_id: started.body.transfer_id };
    const cancelled = await cancelTwice(
      () => api.call('cancelTransfer', { params }),
      (body) => body.execution.status,
    );
    expect(cancelled.execution.error?.code).toBe('10-444');
    await expectStopped(env, held, transferJob, cancelled.execution.job_id);
    expect((await api.call('getTransfer', { params })).body).toMatchObject({
      execution: { status: 'ABORTED' },
      rows_sent: 0,
    });
    expect(dim.received.uploads.filter((upload) => upload.key === cancelled.execution.job_id)).toEqual([]);
    const current = await api.call('getTarget', { params: { target_id: target.id } });
    const renamed = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: asBody('updateTarget', { ...current.body, name: `${target.name} renamed` }),
    });
    expect(renamed.status, renamed.text).toBe(200);
  });
});
