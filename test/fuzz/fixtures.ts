/**
 * What the fuzzer needs in a fresh twin: entities to aim at (a connection to the twin's S3, a
 * bucket data source, a data table with one imported version, a recipe over it, a dataset whose
 * first version has a table node and a recipe node, a bucket target, a multipart upload), the
 * hints and starting requests that let valid-shaped requests name them, and the health check run
 * after the storm.
 */
import { CreateMultipartUploadCommand, PutObjectCommand, type S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ApiClient } from '../support/api-client';
import { connectionCases } from '../support/connections';
import type { TestTwin } from '../support/harness';
import { FUZZ_RECIPE, startingRequests, type FuzzEntities } from './bodies';
import { operationsOf } from './operations';
import type { FuzzContext } from './requests';
import { localS3Client } from '../support/local-s3';

/** The bucket the fuzz twin must be started with (`startTestTwin({ buckets: [FUZZ_BUCKET] })`). */
export const FUZZ_BUCKET = 'fuzz';

/**
 * The fuzzed twin's environment: connector calls bounded, and an assistant model configured so
 * that the ai_assistant toggle is available. The model is never reached: a message goes only
 * to an existing conversation, and none the fuzz names exists (a call would answer 502).
 */
export const FUZZ_TWIN_ENVIRONMENT = {
  CONNECTOR_TIMEOUT_MS: '2000',
  ASSISTANT_CHAT_ENDPOINT: 'http://127.0.0.1:9/v1',
} as const;

/** Turns on, for the fuzzed tenant, the features whose routes should reach their own checks rather than 10-1501. */
export async function enableFuzzedFeatures(env: TestTwin): Promise<void> {
  for (const toggle of ['retention', 'ai_assistant', 'transfers', 'apps', 'data_quality', 'schedules'] as const) {
    const override = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: toggle, tenant_id: env.admin.tenantId! },
      body: { strategy: 'on' },
    });
    if (override.status !== 200) throw new Error(`turning ${toggle} on failed: ${override.text}`);
  }
}
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

/** What the fixtures need of a twin: a test twin, or one in another process (the soak's). */
export interface FuzzEnvironment {
  /** The client that creates the entities and whose token the context carries. */
  readonly admin: ApiClient;
  readonly anonymous: ApiClient;
  readonly twin: {
    readonly s3: { readonly endpoint: string };
    readonly admin: { readonly client_id: string; readonly client_secret: string };
  };
}

/** Creates the entities, and returns the served OpenAPI document and the context naming the entities. */
export async function fuzzFixtures(
  env: FuzzEnvironment,
): Promise<{ readonly document: unknown; readonly context: FuzzContext }> {
  const api = env.admin;
  const s3 = localS3Client(env.twin.s3.endpoint);
  let partUrl: string;
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: FUZZ_BUCKET,
        Key: 'data/a.csv',
        Body: 'id,name,amount\n1,alpha,1.5\n2,beta,\n3,"g, amma",-7\n',
      }),
    );
    partUrl = await presignedPart(s3);
  } finally {
    s3.destroy();
  }
  const fixtures = await entities(env, 'fuzz');
  await importedVersion(api, fixtures.dataTableId);
  // DELETE requests aim at a set of their own: the fixtures must outlive the storm.
  const victims = await entities(env, 'fuzz victim');
  const { warehouse, pricing } = await otherConnections(env);

  const ids = [
    fixtures.connectionId,
    fixtures.dataSourceId,
    fixtures.dataTableId,
    fixtures.targetId,
    fixtures.recipeId,
  ];
  // Tokens of their own, not the admin's the fuzzer sends with: one to exchange, one for DELETE /tokens.
  const exchanged = await fuzzToken(api, 'fuzz exchange');
  const victimToken = await fuzzToken(api, 'fuzz victim');
  const hints = {
    ...idHints(fixtures),
    data_table_ids: [[fixtures.dataTableId]],
    version_number: [1],
    id: ids,
    lock_version: [1, 2],
    code: ['10-400', '30-1507'],
    endpoint: [env.twin.s3.endpoint],
    path: [FOLDER, `${FUZZ_BUCKET}/`],
    path_restriction: [`${FUZZ_BUCKET}/`],
    access_key_id: [LOCAL_S3_CREDENTIALS.accessKeyId],
    secret_access_key: [LOCAL_S3_CREDENTIALS.secretAccessKey],
    client_id: [exchanged.client_id],
    client_secret: [exchanged.secret],
  };
  const document = (await env.anonymous.call('getOpenApiDocument')).body;
  const found = await templates(api, document, hints);
  const start: FuzzEntities = {
    ...fixtures,
    warehouseConnectionId: warehouse,
    pricingConnection: pricing,
    bucket: FUZZ_BUCKET,
    folder: FOLDER,
    s3Endpoint: env.twin.s3.endpoint,
    accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId,
    secretAccessKey: LOCAL_S3_CREDENTIALS.secretAccessKey,
    clientId: exchanged.client_id,
    clientSecret: exchanged.secret,
    partUrl,
    current: (path) => {
      if (!Object.hasOwn(found, path)) throw new Error(`fuzz fixtures: GET ${path} answered nothing to start from`);
      return found[path];
    },
  };
  return {
    document,
    context: {
      token: api.token ?? '',
      hints,
      deleteHints: { ...idHints(victims), client_id: [victimToken.client_id] },
      starts: startingRequests(start),
    },
  };
}

/** A viewer token of the admin's tenant, with its secret. */
async function fuzzToken(api: ApiClient, description: string): Promise<{ client_id: string; secret: string }> {
  const created = await api.call('createToken', { body: { description, role_names: ['viewer'], expiration: 'P1D' } });
  expectStatus(created, 201, `the token "${description}"`);
  return { client_id: created.body.client_id, secret: created.body.secret ?? '' };
}

/** One pre-signed UploadPart URL of a multipart upload in the fuzz bucket: what a multi-part export writes to. */
async function presignedPart(s3: S3Client): Promise<string> {
  const key = 'exports/multi-part.parquet';
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: FUZZ_BUCKET, Key: key }));
  return getSignedUrl(s3, new UploadPartCommand({ Bucket: FUZZ_BUCKET, Key: key, UploadId, PartNumber: 1 }), {
    expiresIn: 3_600,
  });
}

/** A warehouse connection aimed at the twin's S3 (which is no warehouse), and a pricing DIM connection. */
async function otherConnections(env: FuzzEnvironment) {
  const cases = connectionCases(env.twin.s3.endpoint, ' fuzz');
  const request = (label: string) => cases.find((candidate) => candidate.label === label)!.request;
  const warehouseCase = request('warehouse/password');
  const warehouse = await env.admin.call('createConnection', {
    body:
      warehouseCase.type === 'warehouse'
        ? { ...warehouseCase, auth: { ...warehouseCase.auth, host: env.twin.s3.endpoint } }
        : warehouseCase,
  });
  expectStatus(warehouse, 201, 'the warehouse connection');
  const pricing = await env.admin.call('createConnection', { body: request('pricing_dim/oauth_client_credentials') });
  expectStatus(pricing, 201, 'the pricing connection');
  return { warehouse: warehouse.body.id, pricing: { id: pricing.body.id, lock_version: pricing.body.lock_version } };
}

type EntityIds = Pick<
  FuzzEntities,
  | 'connectionId'
  | 'dataSourceId'
  | 'dataTableId'
  | 'targetId'
  | 'recipeId'
  | 'datasetId'
  | 'tableNodeId'
  | 'recipeNodeId'
>;

/** Known-good path parameters naming one set of entities. */
function idHints(ids: EntityIds) {
  return {
    connection_id: [ids.connectionId],
    data_source_id: [ids.dataSourceId],
    data_table_id: [ids.dataTableId],
    target_id: [ids.targetId],
    recipe_id: [ids.recipeId],
    dataset_id: [ids.datasetId],
    node_id: [ids.recipeNodeId, ids.tableNodeId],
  };
}

/**
 * One set of entities: a writable connection to the fuzz bucket, a bucket data source and a data
 * table (not imported) on it, a bucket target, a recipe over the table's alias, and a dataset
 * whose version 1 has a TABLE node of the table and a RECIPE node of the recipe bound to it.
 */
async function entities(env: FuzzEnvironment, name: string): Promise<EntityIds> {
  const api = env.admin;
  const connection = await api.call('createConnection', {
    body: {
      name,
      type: 'object_store',
      auth: {
        auth_type: 'secret_key',
        access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
        secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        endpoint: env.twin.s3.endpoint,
      },
      path_restriction: `${FUZZ_BUCKET}/`,
      write: true,
    },
  });
  expectStatus(connection, 201, 'the connection');
  const connectionId = connection.body.id;
  const source = await api.call('createDataSource', {
    body: { name, type: 'bucket', connection_id: connectionId, path: FOLDER },
  });
  expectStatus(source, 201, 'the data source');
  const table = await api.call('createDataTable', { body: { name, data_source_id: source.body.id } });
  expectStatus(table, 201, 'the data table');
  const target = await api.call('createTarget', {
    body: { name, type: 'bucket', connection_id: connectionId, path: `${FOLDER}{date}/` },
  });
  expectStatus(target, 201, 'the target');
  const recipe = await api.call('createRecipe', { body: { ...FUZZ_RECIPE, name } });
  expectStatus(recipe, 201, 'the recipe');
  const dataset = await api.call('createDataset', { body: { name } });
  expectStatus(dataset, 201, 'the dataset');
  const datasetId = dataset.body.id;
  const params = { dataset_id: datasetId, version_number: 1 };
  const tableNode = await api.call('addDatasetNode', {
    params,
    body: { dataset_id: datasetId, node_type: 'TABLE', data_table_id: table.body.id },
  });
  expectStatus(tableNode, 201, 'the table node');
  const recipeNode = await api.call('addDatasetNode', {
    params,
    body: {
      dataset_id: datasetId,
      node_type: 'RECIPE',
      recipe_id: recipe.body.id,
      recipe_version_number: 1,
      source_node_definitions: [{ source_node_id: tableNode.body.id, alias: recipe.body.latest_version.aliases[0]! }],
    },
  });
  expectStatus(recipeNode, 201, 'the recipe node');
  return {
    connectionId,
    dataSourceId: source.body.id,
    dataTableId: table.body.id,
    targetId: target.body.id,
    recipeId: recipe.body.id,
    datasetId,
    tableNodeId: tableNode.body.id,
    recipeNodeId: recipeNode.body.id,
  };
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
