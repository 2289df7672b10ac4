/**
 * What is downstream of a data version, over the API, for the exports that are jobs of their
 * own: a direct export and a multi-part export of the version, and a direct export of a
 * graph version whose output reads it, are listed by job id; an export of another table or
 * of another version of it is not.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import type { ApiClient } from '../../support/api-client';
import { localS3, waitForDirectExport, waitForMultiPartExport } from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { presignedUpload } from '../../support/multi-part';
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
let s3: S3Client;
let graph: JoinGraph;
let tables: { orders: number; customers: number };

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing', 'exports', 'uploads'], retryIntervalMs: 10 });
  api = env.admin;
  s3 = localS3(env);
  const [orders, customers] = await Promise.all([
    importedTable(api, env, ordersCsv(20)),
    importedTable(api, env, CUSTOMERS_CSV),
  ]);
  tables = { orders, customers };
  graph = await joinGraph(api, tables);
  expect((await executeAndWait(api, graph, graph.aggregate, false)).execution?.status).toBe('COMPLETED');
}, 90_000);

afterAll(async () => {
  s3?.destroy();
  await env?.close();
});

/** Starts a direct export of the source into `exports/<key>` and waits for it; answers its job id. */
async function directExport(source: { type: 'datatable' | 'dataset'; id: number }, key: string): Promise<string> {
  const started = await api.call('startDirectExport', {
    body: {
      source_type: source.type,
      source_id: source.id,
      source_version: 1,
      validate_release: false,
      bucket: 'exports',
      key,
      endpoint: env.twin.s3.endpoint,
      access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
    },
  });
  expect(started.status, started.text).toBe(202);
  const done = await waitForDirectExport(api, started.body.job_id);
  expect(done.status, JSON.stringify(done)).toMatchObject({ status: 'COMPLETED' });
  return started.body.job_id;
}

describe('what is downstream of a data version', () => {
  it('lists its direct and multi-part exports, and those of a graph version that reads it', async () => {
    const ofCustomers = await directExport({ type: 'datatable', id: tables.customers }, 'lineage/customers.parquet');
    const ofOrders = await directExport({ type: 'datatable', id: tables.orders }, 'lineage/orders.parquet');
    const ofDataset = await directExport({ type: 'dataset', id: graph.datasetId }, 'lineage/dataset.parquet');
    const { urls } = await presignedUpload(s3, 'uploads', 'lineage/customers.parquet', 1);
    const multiPart = await api.call('startMultiPartExport', {
      body: { source_type: 'datatable', source_id: tables.customers, source_version: 1, parts_urls: urls },
    });
    expect(multiPart.status, multiPart.text).toBe(202);
    const parted = await waitForMultiPartExport(api, multiPart.body.job_id);
    expect(parted.status, JSON.stringify(parted)).toBe('COMPLETED');

    const response = await api.call('getDataVersionLineage', {
      params: { data_table_id: tables.customers, version_number: 1 },
    });
    expect(response.status, response.text).toBe(200);
    const byJob = (a: { job_id: string }, b: { job_id: string }) => a.job_id.localeCompare(b.job_id);
    expect([...response.body.direct_exports].sort(byJob)).toEqual(
      [
        { job_id: ofCustomers, source_type: 'datatable', source_id: tables.customers, source_version: 1 },
        { job_id: ofDataset, source_type: 'dataset', source_id: graph.datasetId, source_version: 1 },
      ].sort(byJob),
    );
    expect(response.body.multi_part_exports).toEqual([
      { job_id: multiPart.body.job_id, source_type: 'datatable', source_id: tables.customers, source_version: 1 },
    ]);
    // The orders' own export is downstream of the orders, not of the customers; no response carries a secret.
    expect(JSON.stringify(response.body)).not.toContain(ofOrders);
    expect(response.text).not.toMatch(/X-Amz-Signature|secret/i);
    const orders = await api.call('getDataVersionLineage', {
      params: { data_table_id: tables.orders, version_number: 1 },
    });
    expect(orders.body.direct_exports.map((job) => job.job_id).sort()).toEqual([ofDataset, ofOrders].sort());
    expect(orders.body.multi_part_exports).toEqual([]);
  });
});
