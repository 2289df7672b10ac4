/**
 * What the fuzzer needs in a fresh twin: entities to aim at (a connection to the twin's S3, a
 * bucket data source, a data table with one imported version, a bucket target), the hints that let
 * valid-shaped requests name them, and the health check run after the storm.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ApiClient } from '../support/api-client';
import type { TestTwin } from '../support/harness';
import { operationsOf, type FuzzContext } from './requests';

/** The bucket the fuzz twin must be started with (`startTestTwin({ buckets: [FUZZ_BUCKET] })`). */
export const FUZZ_BUCKET = 'fuzz';
const FOLDER = `${FUZZ_BUCKET}/data/`;

function expectStatus(response: { status: number; text: string }, status: number, what: string): void {
  if (response.status !== status)
    throw new Error(`fuzz fixtures: ${what} answered ${response.status} ${response.text}`);
}

async function importedVersion(api: ApiClient, tableId: number): Promise<void> {
  const started = await api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } });
  expectStatus(started, 202, 'the import');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const version = await api.call('getDataVersion', { params: { data_table_id: tableId, version_number: 1 } });
    if (['COMPLETED', 'FAILED', 'ABORTED'].includes(version.body.execution.status)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('fuzz fixtures: the import did not end in 30 s');
}

/** What GET answers at every path whose parameters all have hints: the entities as they stand. */
async function templates(
  api: ApiClient,
  document: unknown,
  hints: FuzzContext['hints'],
): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  for (const operation of operationsOf(document)) {
    if (operation.method !== 'GET' || operation.pathParameters.length === 0) continue;
    const values = operation.pathParameters.map((parameter) =>
      Object.hasOwn(hints, parameter.name) ? hints[parameter.name]![0] : undefined,
    );
    if (values.includes(undefined)) continue;
    const path = operation.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(String(values.shift())));
    const response = await api.raw('GET', path);
    if (response.status === 200) found[operation.path] = response.json;
  }
  return found;
}

/** Creates the entities, and returns the served OpenAPI document and the context naming the entities. */
export async function fuzzFixtures(
  env: TestTwin,
): Promise<{ readonly document: unknown; readonly context: FuzzContext }> {
  const api = env.admin;
  const s3 = new S3Client({
    endpoint: env.twin.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
  });
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: FUZZ_BUCKET,
        Key: 'data/a.csv',
        Body: 'id,name,amount\n1,alpha,1.5\n2,beta,\n3,"g, amma",-7\n',
      }),
    );
  } finally {
    s3.destroy();
  }
  const auth = {
    auth_type: 'secret_key',
    access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
    secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
    endpoint: env.twin.s3.endpoint,
  } as const;
  const connection = await api.call('createConnection', {
    body: { name: 'fuzz target', type: 'object_store', auth, path_restriction: `${FUZZ_BUCKET}/`, write: true },
  });
  expectStatus(connection, 201, 'the connection');
  const source = await api.call('createDataSource', {
    body: { name: 'fuzz source', type: 'bucket', connection_id: connection.body.id, path: FOLDER },
  });
  expectStatus(source, 201, 'the data source');
  const table = await api.call('createDataTable', { body: { name: 'fuzz table', data_source_id: source.body.id } });
  expectStatus(table, 201, 'the data table');
  await importedVersion(api, table.body.id);
  const target = await api.call('createTarget', {
    body: { name: 'fuzz target', type: 'bucket', connection_id: connection.body.id, path: `${FOLDER}{date}/` },
  });
  expectStatus(target, 201, 'the target');

  const ids = [connection.body.id, source.body.id, table.body.id, target.body.id];
  const hints = {
    connection_id: [connection.body.id],
    data_source_id: [source.body.id],
    data_table_id: [table.body.id],
    target_id: [target.body.id],
    data_table_ids: [[table.body.id]],
    version_number: [1],
    id: ids,
    lock_version: [1, 2],
    code: ['10-400', '30-1507'],
    endpoint: [env.twin.s3.endpoint],
    path: [FOLDER, `${FUZZ_BUCKET}/`],
    path_restriction: [`${FUZZ_BUCKET}/`],
    access_key_id: [LOCAL_S3_CREDENTIALS.accessKeyId],
    secret_access_key: [LOCAL_S3_CREDENTIALS.secretAccessKey],
    client_id: [env.twin.admin.client_id],
    client_secret: [env.twin.admin.client_secret],
  };
  const document = (await env.anonymous.call('getOpenApiDocument')).body;
  return { document, context: { token: api.token ?? '', hints, templates: await templates(api, document, hints) } };
}

/** After the storm: a token exchange, a create and a read of it still work. Throws if not. */
export async function stillServes(env: TestTwin): Promise<void> {
  const fresh = await env.clientFor(env.twin.admin.tenant_id, ['admin']);
  const created = await fresh.call('createConnection', {
    body: {
      name: `after the fuzz ${Date.now()}`,
      type: 'object_store',
      auth: {
        auth_type: 'secret_key',
        access_key_id: 'S3RVER',
        secret_access_key: 'S3RVER',
        endpoint: env.twin.s3.endpoint,
      },
    },
  });
  expectStatus(created, 201, 'a create after the fuzz');
  const read = await fresh.call('getConnection', { params: { connection_id: created.body.id } });
  expectStatus(read, 200, 'a read after the fuzz');
  if (read.body.name !== created.body.name) throw new Error('a read after the fuzz returned another connection');
  expectStatus(await fresh.call('listConnections', { query: { limit: 5 } }), 200, 'a list after the fuzz');
}
