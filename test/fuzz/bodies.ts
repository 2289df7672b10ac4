/**
 * A valid starting request for every operation that takes a body: the fuzzer's mutations spoil
 * one place of it, so they reach the checks behind schema validation (an id that must exist,
 * SQL the analyzer reads, a job that starts) instead of stopping at a missing field.
 *
 * Bodies are typed by the routes' zod request schemas (RequestBody), and the map must name every
 * such operation, so a new route with a body does not compile without one; each body is checked
 * against its schema again when the fixtures are built (asBody). Updates start from the entity
 * as GET answers it, sent back.
 */
import type * as z from 'zod';
import { routeTable, type OperationId, type RouteTable } from '../../functions/routes';
import { asBody, type RequestBody } from '../support/api-client';
import { APP_STARTING_REQUESTS } from './app-bodies';

/** Operations whose route declares a request body. */
export type BodyOperationId = {
  [O in OperationId]: RouteTable[O]['request'] extends { readonly body: z.ZodType } ? O : never;
}[OperationId];

/** The fixtures a starting request may name (test/fuzz/fixtures.ts creates them on the fuzz twin). */
export interface FuzzEntities {
  readonly connectionId: number;
  readonly dataSourceId: number;
  readonly dataTableId: number;
  readonly targetId: number;
  readonly recipeId: number;
  readonly datasetId: number;
  readonly tableNodeId: number;
  readonly recipeNodeId: number;
  /** A warehouse connection whose host is the twin's S3 (no warehouse answers there), for query tests. */
  readonly warehouseConnectionId: number;
  /** A pricing DIM connection as created: the one kind a type mapping applies to. */
  readonly pricingConnection: { readonly id: number; readonly lock_version: number };
  /** The bucket the connection may read and write, and a folder in it holding a.csv. */
  readonly bucket: string;
  readonly folder: string;
  readonly s3Endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A pre-signed UploadPart URL of a multipart upload on the twin's S3. */
  readonly partUrl: string;
  /** What GET answers at a path template (every parameter one of the fixtures'). */
  readonly current: (pathTemplate: string) => unknown;
}

/** A request of operation O that passes validation: path parameters and the body. */
export interface StartingRequest<O extends BodyOperationId> {
  readonly params?: Readonly<Record<string, number | string>>;
  readonly body: RequestBody<O>;
}

/** A schedule of the fixture dataset: 06:00 in Paris, every day. */
const fuzzedSchedule = (e: FuzzEntities) => ({
  name: 'fuzzed schedule',
  dataset_id: e.datasetId,
  trigger: { type: 'cron' as const, expression: '0 6 * * *', time_zone: 'Europe/Paris' },
});

type StartingRequests = { readonly [O in BodyOperationId]: (entities: FuzzEntities) => StartingRequest<O> };

/** The alias of the fixture table in the fixture recipe, and code that reads it. */
const ALIAS = 'sales';
const CODE = `SELECT id, name, amount FROM ${ALIAS} WHERE amount > 0`;
/** The recipe the fixtures create, and the body every recipe create starts from. */
export const FUZZ_RECIPE: RequestBody<'createRecipe'> = {
  name: 'fuzzed recipe',
  aliases: [ALIAS],
  recipe_version: { code: CODE },
};
const SALES_COLUMNS = [
  { name: 'id', type: 'BIGINT' },
  { name: 'name', type: 'VARCHAR' },
  { name: 'amount', type: 'DOUBLE' },
];

const connection = (e: FuzzEntities) => ({ connection_id: e.connectionId });
const dataSource = (e: FuzzEntities) => ({ data_source_id: e.dataSourceId });
const dataTable = (e: FuzzEntities) => ({ data_table_id: e.dataTableId });
const recipe = (e: FuzzEntities) => ({ recipe_id: e.recipeId });
const dataset = (e: FuzzEntities) => ({ dataset_id: e.datasetId });
const target = (e: FuzzEntities) => ({ target_id: e.targetId });
const graph = (e: FuzzEntities) => ({ dataset_id: e.datasetId, version_number: 1 });
const node = (e: FuzzEntities, nodeId: number) => ({ ...graph(e), node_id: nodeId });

/** The entity at `path` as GET answers it, with its id and lock_version only: a merge patch that changes nothing. */
function lockOf(e: FuzzEntities, path: string): { id: number; lock_version: number } {
  const { id, lock_version } = e.current(path) as { id: number; lock_version: number };
  return { id, lock_version };
}

function objectStoreConfiguration(e: FuzzEntities) {
  return {
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: e.accessKeyId,
      secret_access_key: e.secretAccessKey,
      endpoint: e.s3Endpoint,
    },
  } as const;
}

const fuzzedRule = (e: FuzzEntities) =>
  ({ name: 'fuzzed rule', kind: 'not_null', ...dataTable(e), severity: 'warn', column: 'amount' }) as const;

const versionSource = (e: FuzzEntities) => ({
  source_type: 'datatable' as const,
  source_id: e.dataTableId,
  source_version: 1,
});

export const STARTING_REQUESTS: StartingRequests = {
  issueToken: (e) => ({
    body: { grant_type: 'client_credentials', client_id: e.clientId, client_secret: e.clientSecret },
  }),
  createConnection: (e) => ({
    body: { name: 'fuzzed connection', ...objectStoreConfiguration(e), path_restriction: `${e.bucket}/` },
  }),
  updateConnection: (e) => ({
    params: connection(e),
    body: asBody('updateConnection', e.current('/connections/{connection_id}')),
  }),
  mergeConnection: (e) => ({
    params: connection(e),
    body: { ...lockOf(e, '/connections/{connection_id}'), type: 'object_store', description: 'fuzzed' },
  }),
  testConnection: (e) => ({ body: objectStoreConfiguration(e) }),
  testStoredConnection: (e) => ({ params: connection(e), body: { type: 'object_store' } }),
  browseConnection: (e) => ({ params: connection(e), body: { path: e.folder } }),
  updateConnectionTypeMapping: (e) => ({
    params: { connection_id: e.pricingConnection.id },
    body: { ...e.pricingConnection, type_mapping: '{"PRICE":"decimal","SKU":"string"}', type_mapping_name: 'fuzz' },
  }),
  createDataSource: (e) => ({
    body: { name: 'fuzzed source', type: 'bucket', connection_id: e.connectionId, path: e.folder },
  }),
  updateDataSource: (e) => ({
    params: dataSource(e),
    body: asBody('updateDataSource', e.current('/data-sources/{data_source_id}')),
  }),
  mergeDataSource: (e) => ({
    params: dataSource(e),
    body: { ...lockOf(e, '/data-sources/{data_source_id}'), type: 'bucket', description: 'fuzzed' },
  }),
  testRdbmsQuery: (e) => ({
    params: { connection_id: e.warehouseConnectionId },
    body: { query: 'SELECT id, amount FROM sales WHERE amount > 0' },
  }),
  createDataTable: (e) => ({ body: { name: 'fuzzed table', data_source_id: e.dataSourceId } }),
  updateDataTable: (e) => ({
    params: dataTable(e),
    body: asBody('updateDataTable', e.current('/data-tables/{data_table_id}')),
  }),
  batchCreateDataVersions: (e) => ({ body: { data_table_ids: [e.dataTableId] } }),
  // A version that does not exist: deleting version 1 would take every later request's source away.
  batchDeleteDataVersions: (e) => ({
    body: { data_versions: [{ data_table_id: e.dataTableId, version_number: 999 }] },
  }),
  analyseDataVersionSchema: (e) => ({ params: { ...dataTable(e), version_number: 1 }, body: { depth: 'FULL' } }),
  createRecipe: () => ({ body: FUZZ_RECIPE }),
  updateRecipe: (e) => ({ params: recipe(e), body: asBody('updateRecipe', e.current('/recipes/{recipe_id}')) }),
  mergeRecipe: (e) => ({ params: recipe(e), body: { ...lockOf(e, '/recipes/{recipe_id}'), description: 'fuzzed' } }),
  createRecipeVersion: (e) => ({ params: recipe(e), body: { code: CODE, aliases: [ALIAS] } }),
  updateRecipeVersion: (e) => ({
    params: { ...recipe(e), version_number: 1 },
    body: asBody('updateRecipeVersion', e.current('/recipes/{recipe_id}/versions/{version_number}')),
  }),
  analyzeRecipe: () => ({ body: { code: CODE, aliases: [ALIAS], tables: { [ALIAS]: SALES_COLUMNS } } }),
  createDataset: () => ({ body: { name: 'fuzzed dataset', tags: ['fuzz'] } }),
  sendConversationMessage: () => ({
    params: { conversation_id: '00000000-0000-4000-8000-000000000000' },
    body: { content: 'Which of my tables hold order dates?' },
  }),
  putRetentionPolicy: () => ({ body: { enabled: true, rule: { threshold_days: 30 }, lock_version: 0 } }),
  updateDataset: (e) => ({ params: dataset(e), body: asBody('updateDataset', e.current('/datasets/{dataset_id}')) }),
  mergeDataset: (e) => ({
    params: dataset(e),
    body: { ...lockOf(e, '/datasets/{dataset_id}'), description: 'fuzzed' },
  }),
  createDatasetVersion: (e) => ({
    params: dataset(e),
    body: { dataset_id: e.datasetId, source_transformation_graph_version_number: 1 },
  }),
  addDatasetNode: (e) => ({
    params: graph(e),
    body: { dataset_id: e.datasetId, node_type: 'TABLE', data_table_id: e.dataTableId, data_table_version_number: 1 },
  }),
  updateDatasetNode: (e) => ({
    params: node(e, e.recipeNodeId),
    body: {
      ...lockOf(e, '/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}'),
      node_type: 'RECIPE',
      dataset_id: e.datasetId,
      recipe_version_number: 1,
      source_node_definitions: [{ source_node_id: e.tableNodeId, alias: ALIAS }],
    },
  }),
  executeDatasetNode: (e) => ({ params: node(e, e.recipeNodeId), body: { use_sample: true } }),
  analyseDatasetNodeSchema: (e) => ({ params: node(e, e.recipeNodeId), body: { depth: 'SHALLOW' } }),
  createTarget: (e) => ({
    body: { name: 'fuzzed target', type: 'bucket', connection_id: e.connectionId, path: `${e.folder}{date}/` },
  }),
  updateTarget: (e) => ({ params: target(e), body: asBody('updateTarget', e.current('/targets/{target_id}')) }),
  mergeTarget: (e) => ({
    params: target(e),
    body: { ...lockOf(e, '/targets/{target_id}'), type: 'bucket', description: 'fuzzed' },
  }),
  createExport: (e) => ({ body: { target_id: e.targetId, ...versionSource(e) } }),
  startDirectExport: (e) => ({
    body: {
      ...versionSource(e),
      bucket: e.bucket,
      key: 'exports/fuzzed.parquet',
      endpoint: e.s3Endpoint,
      access_key: e.accessKeyId,
      secret_key: e.secretAccessKey,
    },
  }),
  startMultiPartExport: (e) => ({ body: { ...versionSource(e), parts_urls: [e.partUrl] } }),
  startTransfer: (e) => ({ body: { target_id: e.targetId, ...versionSource(e) } }),
  // The fuzz twin leaves data_quality off: these reach the feature check (10-1501) behind validation.
  createQualityRule: (e) => ({ body: fuzzedRule(e) }),
  updateQualityRule: (e) => ({ params: { rule_id: 1 }, body: { id: 1, lock_version: 0, ...fuzzedRule(e) } }),
  mergeQualityRule: () => ({ params: { rule_id: 1 }, body: { id: 1, lock_version: 0, kind: 'not_null' } }),
  // Schedule 1 of the fuzz tenant need not exist: its updates reach the store's checks (10-404 or 10-1006).
  createSchedule: (e) => ({ body: fuzzedSchedule(e) }),
  updateSchedule: (e) => ({ params: { schedule_id: 1 }, body: { id: 1, lock_version: 0, ...fuzzedSchedule(e) } }),
  mergeSchedule: () => ({ params: { schedule_id: 1 }, body: { id: 1, lock_version: 0, overlap: 'queue' } }),
  pauseSchedule: () => ({ params: { schedule_id: 1 }, body: { lock_version: 0 } }),
  resumeSchedule: () => ({ params: { schedule_id: 1 }, body: { lock_version: 0 } }),
  acceptQualityFailure: (e) => ({ params: { ...dataTable(e), version_number: 1 }, body: {} }),
  acceptNodeQualityFailure: (e) => ({ params: node(e, e.recipeNodeId), body: {} }),
  createToken: () => ({ body: { description: 'fuzzed token', role_names: ['viewer'], expiration: 'P1D' } }),
  // Far ahead: a contract the storm makes never becomes the tenant's current one.
  createQuotaContract: () => ({
    body: {
      name: 'fuzzed contract',
      start_date: '2090-01-01',
      end_date: '2090-02-01',
      cpu_time_hours: 10,
      data_transfer_gb: 10,
    },
  }),
  setQuotaOverage: () => ({ body: { overage_allowed: true } }),
  // A toggle this build lacks, set off: the storm cannot change what other requests meet.
  setFeatureToggleDefault: () => ({ params: { toggle_name: 'ai_assistant' }, body: { strategy: 'off' } }),
  setFeatureToggleOverride: () => ({
    params: { toggle_name: 'ai_assistant', tenant_id: 'fuzz-tenant' },
    body: { strategy: 'off' },
  }),
  createTenant: () => ({ body: { tenant_id: 'fuzz-tenant', name: 'Fuzzed tenant' } }),
  // null: the stage's endpoint, so the storm sends no event anywhere else.
  setTenantOpenLineageEndpoint: () => ({ params: { tenant_id: 'fuzz-tenant' }, body: { url: null } }),
  // The fuzzed tenant's apps toggle is on (enableFuzzedFeatures): these reach the apps' own checks.
  ...APP_STARTING_REQUESTS,
};

/**
 * The starting request of every operation with a body, by operationId, each checked against its
 * route's schema: a fixture that no longer fits its schema fails here, before any fuzzing.
 */
export function startingRequests(entities: FuzzEntities): Readonly<Record<string, StartingRequest<BodyOperationId>>> {
  return Object.fromEntries(
    (Object.keys(STARTING_REQUESTS) as BodyOperationId[]).map((operationId) => {
      const start = (STARTING_REQUESTS[operationId] as (e: FuzzEntities) => StartingRequest<BodyOperationId>)(entities);
      asBody(operationId, start.body);
      const params = (routeTable[operationId].request as { params?: z.ZodType }).params;
      const asText = Object.fromEntries(
        Object.entries(start.params ?? {}).map(([name, value]) => [name, String(value)]),
      );
      if (params && !params.safeParse(asText).success)
        throw new Error(`fuzz starting request of ${operationId}: its path parameters do not fit the route`);
      return [operationId, start];
    }),
  );
}
