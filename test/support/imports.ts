/**
 * Building blocks of import tests, over the public API only: CSV files in the twin's S3, an
 * object-store connection to it, a bucket data source, a data table, an import, and polling
 * a job until it ends.
 */
import { strict as assert } from 'node:assert';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ApiClient, ApiResponse, ResponseBody } from './api-client';
import type { TestTwin } from './harness';
import { localS3Client } from './local-s3';

export async function putObjects(
  env: TestTwin,
  bucket: string,
  objects: Readonly<Record<string, string | Uint8Array>>,
): Promise<void> {
  const s3 = localS3Client(env.twin.s3.endpoint);
  try {
    for (const [key, body] of Object.entries(objects))
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  } finally {
    s3.destroy();
  }
}

let sequence = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${(sequence += 1)}`;

export async function createObjectStoreConnection(
  api: ApiClient,
  env: TestTwin,
  options: { endpoint?: string; pathRestriction?: string; write?: boolean } = {},
): Promise<number> {
  const response = await api.call('createConnection', {
    body: {
      name: unique('s3'),
      type: 'object_store',
      auth: {
        auth_type: 'secret_key',
        access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
        secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        endpoint: options.endpoint ?? env.twin.s3.endpoint,
      },
      ...(options.pathRestriction ? { path_restriction: options.pathRestriction } : {}),
      ...(options.write === undefined ? {} : { write: options.write }),
    },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

export async function createBucketSource(api: ApiClient, connectionId: number, path: string): Promise<number> {
  const response = await api.call('createDataSource', {
    body: { name: unique('source'), type: 'bucket', connection_id: connectionId, path },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

export async function createTable(api: ApiClient, dataSourceId: number): Promise<number> {
  const response = await api.call('createDataTable', { body: { name: unique('table'), data_source_id: dataSourceId } });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

/** A table over `path` of the twin's S3, through a fresh connection and data source. */
export async function tableOver(
  api: ApiClient,
  env: TestTwin,
  path: string,
  connection: { endpoint?: string } = {},
): Promise<number> {
  const connectionId = await createObjectStoreConnection(api, env, connection);
  return createTable(api, await createBucketSource(api, connectionId, path));
}

/** Starts one import and returns the new version's number. */
export async function startImport(api: ApiClient, tableId: number): Promise<number> {
  const response = await api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } });
  assert.equal(response.status, 202, response.text);
  const [result] = response.body.results;
  if (result?.status !== 'ACCEPTED' || !result.data_version)
    throw new Error(`import of table ${tableId} refused: ${JSON.stringify(result)}`);
  return result.data_version.version_number;
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'ABORTED']);

/**
 * Calls `read` until the execution it shows is terminal; bounded in time. `read` is one
 * typed call (a version, an analysis status), `execution` picks the job's execution from it.
 */
export async function waitForJob<T>(
  read: () => Promise<ApiResponse<T>>,
  execution: (body: T) => { readonly status: string },
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await read();
    assert.equal(response.status, 200, response.text);
    const { status } = execution(response.body);
    if (TERMINAL.has(status)) return response.body;
    if (Date.now() > deadline) throw new Error(`job still ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls a data version until its import ends. */
export function waitForVersion(
  api: ApiClient,
  tableId: number,
  versionNumber: number,
): Promise<ResponseBody<'getDataVersion'>> {
  return waitForJob(
    () => api.call('getDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } }),
    (version) => version.execution,
  );
}

/** Imports a new version and waits for it to end; returns the version. */
export async function importAndWait(api: ApiClient, tableId: number): Promise<ResponseBody<'getDataVersion'>> {
  return waitForVersion(api, tableId, await startImport(api, tableId));
}

/**
 * Imports a new version and expects it COMPLETED; a failure prints the whole execution, whose
 * code and cause say why (a bare "expected FAILED" hides them).
 */
export async function importCompleted(api: ApiClient, tableId: number): Promise<ResponseBody<'getDataVersion'>> {
  const version = await importAndWait(api, tableId);
  assert.equal(version.execution.status, 'COMPLETED', JSON.stringify(version.execution));
  return version;
}
