/**
 * Exports of a dataset version: the output node's output as its latest run of that kind
 * wrote it, to a bucket target and directly, read back and compared with DuckDB on the
 * node's output; and the rules a dataset source adds (spec 3, condition 4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { asBody, type ApiClient, type RequestBody } from '../../support/api-client';
import { getObject, queryFiles, waitForDirectExport } from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { waitForJob } from '../../support/imports';
import {
  CUSTOMERS_CSV,
  executeAndWait,
  importedTable,
  joinGraph,
  ordersCsv,
  type JoinGraph,
} from '../datasets/run-fixtures';

let env: TestTwin;
let api: ApiClient;
let graph: JoinGraph;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing', 'exports'], retryIntervalMs: 10 });
  api = env.admin;
  const [orders, customers] = await Promise.all([
    importedTable(api, env, ordersCsv(200)),
    importedTable(api, env, CUSTOMERS_CSV),
  ]);
  graph = await joinGraph(api, { orders, customers });
}, 120_000);

afterAll(async () => {
  await env?.close();
});

function directRequest(overrides: Partial<RequestBody<'startDirectExport'>> = {}): RequestBody<'startDirectExport'> {
  return asBody('startDirectExport', {
    source_type: 'dataset',
    source_id: graph.datasetId,
    source_version: 1,
    bucket: 'exports',
    key: 'datasets/out.parquet',
    endpoint: env.twin.s3.endpoint,
    access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
    secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
    ...overrides,
  });
}

const refusal = async (body: RequestBody<'startDirectExport'>) =>
  (await api.call('startDirectExport', { body })).problem.code;

/** The output node's output of `kind`, as the run wrote it to the data bucket. */
const nodeOutput = (kind: 'sample' | 'full') =>
  getObject(
    env,
    DATA_BUCKET,
    `${env.twin.admin.tenant_id}/datasets/${graph.datasetId}/g1/nodes/${graph.aggregate}/${kind}/data.parquet`,
  );

describe('dataset sources', () => {
  it('refuse a draft (20-1016), an output node that never ran (20-1019), a kind it never ran on (20-1017, 20-1018)', async () => {
    expect(await refusal(directRequest())).toBe('20-1016');
    expect(await refusal(directRequest({ validate_release: false }))).toBe('20-1019');
    expect((await executeAndWait(api, graph, graph.aggregate, true)).execution?.status).toBe('COMPLETED');
    expect(await refusal(directRequest({ validate_release: false }))).toBe('20-1018');
    const sample = await api.call('startDirectExport', {
      body: directRequest({ validate_release: false, use_sample: true, key: 'datasets/sample.parquet' }),
    });
    expect(sample.status, sample.text).toBe(202);
    expect((await waitForDirectExport(api, sample.body.job_id)).status.status).toBe('COMPLETED');
    const exported = await queryFiles([await getObject(env, 'exports', 'datasets/sample.parquet')], 'SELECT * FROM f0');
    expect(exported).toEqual(await queryFiles([await nodeOutput('sample')], 'SELECT * FROM f0'));
  });

  it('export the released output node on full data to a target, as the run wrote it', async () => {
    expect((await executeAndWait(api, graph, graph.aggregate, false)).execution?.status).toBe('COMPLETED');
    const released = await api.call('releaseDatasetVersion', {
      params: { dataset_id: graph.datasetId, version_number: 1 },
    });
    expect(released.status, released.text).toBe(200);
    expect(await refusal(directRequest({ use_sample: true, columns: ['nope'] }))).toBe('20-1031');

    const connection = await api.call('createConnection', {
      body: asBody('createConnection', {
        name: `dataset exports ${process.pid}`,
        type: 'object_store',
        write: true,
        path_restriction: 'exports/',
        auth: {
          auth_type: 'secret_key',
          access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
          endpoint: env.twin.s3.endpoint,
        },
      }),
    });
    expect(connection.status, connection.text).toBe(201);
    const target = await api.call('createTarget', {
      body: asBody('createTarget', {
        name: 'datasets',
        type: 'bucket',
        connection_id: connection.body.id,
        path: 'exports/datasets/v{version}/',
      }),
    });
    expect(target.status, target.text).toBe(201);
    const started = await api.call('createExport', {
      body: asBody('createExport', {
        target_id: target.body.id,
        source_type: 'dataset',
        source_id: graph.datasetId,
        source_version: 1,
        columns: ['name', 'total'],
      }),
    });
    expect(started.status, started.text).toBe(202);
    const done = await waitForJob(
      () => api.call('getExport', { params: { export_id: started.body.export_id } }),
      (body) => body.execution,
    );
    const dataset = (await api.call('getDataset', { params: { dataset_id: graph.datasetId } })).body;
    expect(done).toMatchObject({
      execution: { status: 'COMPLETED' },
      source_type: 'dataset',
      source_name: dataset.name,
    });
    const exported = await queryFiles([await getObject(env, 'exports', done.exported_table_name!)], 'SELECT * FROM f0');
    const expected = await queryFiles([await nodeOutput('full')], 'SELECT name, total FROM f0');
    expect(exported).toEqual(expected);
    expect(exported.rows.length).toBeGreaterThan(0);
  });
});
