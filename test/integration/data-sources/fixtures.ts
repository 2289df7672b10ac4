/**
 * Connections and data source bodies for the data-source tests: one valid create request per
 * kind, each through a connection created over the API from test/support/connections.ts.
 */
import { expect } from 'vitest';
import { asBody, type ApiClient, type RequestBody, type ResponseBody } from '../../support/api-client';
import { connectionCases } from '../../support/connections';

export type ConnectionLabel =
  | 'object_store/secret_key'
  | 'cloud_store/service_account_key'
  | 'cloud_store/workload_identity'
  | 'analytics_db/service_account_key'
  | 'analytics_db/workload_identity'
  | 'warehouse/password'
  | 'warehouse/oauth_client_credentials'
  | 'delta_sharing/delta_sharing_profile'
  | 'pricing_dim/oauth_client_credentials';

export interface CreatedConnection {
  readonly id: number;
  readonly type: ResponseBody<'createConnection'>['type'];
  readonly lock_version: number;
  /** Every secret the connection was created with. */
  readonly secrets: readonly string[];
}

let sequence = 0;

/** Creates a connection of `label` (names made unique), with `overrides` on the request. */
export async function createConnection(
  api: ApiClient,
  s3Endpoint: string,
  label: ConnectionLabel,
  overrides: Record<string, unknown> = {},
): Promise<CreatedConnection> {
  const found = connectionCases(s3Endpoint, ` #${++sequence}`).find((candidate) => candidate.label === label)!;
  const response = await api.call('createConnection', {
    body: asBody('createConnection', { ...found.request, ...overrides }),
  });
  expect(response.status, `${label}: ${response.text}`).toBe(201);
  return {
    id: response.body.id,
    type: response.body.type,
    lock_version: response.body.lock_version,
    secrets: found.secrets,
  };
}

export type SourceKind = 'bucket' | 'rdbms' | 'delta_sharing' | 'analytics_db';

/**
 * A create request of `kind`, picked from the request union by the field only that kind has: the
 * model types every kind's `type` as also accepting delta_sharing's two spellings, so `type`
 * cannot pick it.
 */
export type SourceRequest<K extends SourceKind = SourceKind> = K extends SourceKind
  ? Extract<RequestBody<'createDataSource'>, Record<KindKey[K], unknown>>
  : never;
interface KindKey {
  bucket: 'path';
  rdbms: 'query';
  delta_sharing: 'share';
  analytics_db: 'table_ref';
}

/** A data source as the API answers it. */
export type Source = ResponseBody<'getDataSource'>;

/** The connection each kind reads through in these tests. */
export const CONNECTION_OF: Record<SourceKind, ConnectionLabel> = {
  bucket: 'object_store/secret_key',
  rdbms: 'warehouse/password',
  delta_sharing: 'delta_sharing/delta_sharing_profile',
  analytics_db: 'analytics_db/service_account_key',
};

/** The kind's own fields of a valid request, for the connections of CONNECTION_OF. */
export const KIND_FIELDS: {
  readonly [K in SourceKind]: Omit<SourceRequest<K>, 'type' | 'name' | 'description' | 'tags' | 'connection_id'>;
} = {
  bucket: { path: 'demo/sales/2024-01.csv' },
  rdbms: {
    query: "SELECT region, SUM(amount) AS total FROM sales WHERE note <> 'drop table' GROUP BY region",
    warehouse: 'COMPUTE_WH',
  },
  delta_sharing: { share: 'partner', schema: 'retail', table: 'orders' },
  analytics_db: { table_ref: 'acme-bi.sales.`daily totals`' },
};

/** A valid create request of `kind` through `connectionId`. */
export function sourceRequest<K extends SourceKind>(
  kind: K,
  connectionId: number,
  overrides: Partial<SourceRequest<K>> = {},
): SourceRequest<K> {
  // The kind and its fields agree by KIND_FIELDS' type; TypeScript cannot follow that through the generic.
  return {
    name: `${kind} source #${++sequence}`,
    type: kind,
    connection_id: connectionId,
    ...KIND_FIELDS[kind],
    ...overrides,
  } as SourceRequest<K>;
}

/** Creates a data source of `kind` through a new connection; answers both. */
export async function createSource<K extends SourceKind>(
  api: ApiClient,
  s3Endpoint: string,
  kind: K,
  overrides: Partial<SourceRequest<K>> = {},
) {
  const connection = await createConnection(api, s3Endpoint, CONNECTION_OF[kind]);
  const response = await api.call('createDataSource', { body: sourceRequest(kind, connection.id, overrides) });
  expect(response.status, response.text).toBe(201);
  const source = response.body;
  if (!isKind(source, kind)) throw new Error(`asked for a ${kind} data source, got ${source.type}`);
  return { connection, source };
}

function isKind<K extends SourceKind>(source: Source, kind: K): source is Extract<Source, { type: K }> {
  return source.type === kind;
}

/** The data source as read, sent back as a full update with `changes`; checked to be a valid update. */
export function sentBack(
  source: Source,
  changes: Partial<RequestBody<'updateDataSource'>> = {},
): RequestBody<'updateDataSource'> {
  return asBody('updateDataSource', { ...source, ...changes });
}
