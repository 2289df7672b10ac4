/**
 * Building blocks of import tests, over the public API only: CSV files in the twin's S3, an
 * object-store connection to it, a bucket data source, a data table, an import, and polling
 * a job until it ends.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ApiClient, TestTwin } from './harness';

export async function putObjects(env: TestTwin, bucket: string, objects: Readonly<Record<string, string | Uint8Array>>): Promise<void> {
  const s3 = new S3Client({ endpoint: env.twin.s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS });
  try {
    for (const [key, body] of Object.entries(objects)) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  } finally {
    s3.destroy();
  }
}

let sequence = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${(sequence += 1)}`;

export async function createObjectStoreConnection(api: ApiClient, env: TestTwin, options: { endpoint?: string; pathRestriction?: string } = {}): Promise<number> {
  const response = await api.post('/connections', {
    name: unique('s3'),
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint: options.endpoint ?? env.twin.s3.endpoint,
    },
    ...(options.pathRestriction ? { path_restriction: options.pathRestriction } : {}),
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as number;
}

export async function createBucketSource(api: ApiClient, connectionId: number, path: string): Promise<number> {
  const response = await api.post('/data-sources', { name: unique('source'), type: 'bucket', connection_id: connectionId, path });
  expect(response.status, response.text).toBe(201);
  return response.body.id as number;
}

export async function createTable(api: ApiClient, dataSourceId: number): Promise<number> {
  const response = await api.post('/data-tables', { name: unique('table'), data_source_id: dataSourceId });
  expect(response.status, response.text).toBe(201);
  return response.body.id as number;
}

/** A table over `path` of the twin's S3, through a fresh connection and data source. */
export async function tableOver(api: ApiClient, env: TestTwin, path: string, connection: { endpoint?: string } = {}): Promise<number> {
  const connectionId = await createObjectStoreConnection(api, env, connection);
  return createTable(api, await createBucketSource(api, connectionId, path));
}

/** Starts one import and returns the new version's number. */
export async function startImport(api: ApiClient, tableId: number): Promise<number> {
  const response = await api.post('/data-versions/batch-create', { data_table_ids: [tableId] });
  expect(response.status, response.text).toBe(202);
  const [result] = response.body.results;
  expect(result.status, JSON.stringify(result)).toBe('ACCEPTED');
  return result.data_version.version_number as number;
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'ABORTED']);

/** Polls `path` until `execution(body).status` is terminal; bounded in time. */
export async function waitForJob(api: ApiClient, path: string, execution: (body: any) => any = (body) => body.execution, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(path);
    expect(response.status, response.text).toBe(200);
    if (TERMINAL.has(execution(response.body).status)) return response.body;
    if (Date.now() > deadline) throw new Error(`job at ${path} still ${execution(response.body).status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Imports a new version and waits for it to end; returns the version. */
export async function importAndWait(api: ApiClient, tableId: number): Promise<any> {
  const versionNumber = await startImport(api, tableId);
  return waitForJob(api, `/data-tables/${tableId}/versions/${versionNumber}`);
}
