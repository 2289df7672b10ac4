/**
 * Connections and data source bodies for the data-source tests: one valid create request per
 * kind, each through a connection created over the API from test/support/connections.ts.
 */
import { expect } from 'vitest';
import { connectionCases } from '../../support/connections';
import type { ApiClient } from '../../support/harness';

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
  readonly type: string;
  readonly lock_version: number;
  /** Every secret the connection was created with. */
  readonly secrets: readonly string[];
}

let sequence = 0;

/** Creates a connection of `label` (names made unique), with `overrides` on the request. */
export async function createConnection(api: ApiClient, s3Endpoint: string, label: ConnectionLabel, overrides: Record<string, unknown> = {}): Promise<CreatedConnection> {
  const found = connectionCases(s3Endpoint, ` #${++sequence}`).find((candidate) => candidate.label === label)!;
  const response = await api.post('/connections', { ...found.request, ...overrides });
  expect(response.status, `${label}: ${response.text}`).toBe(201);
  return { id: response.body.id, type: response.body.type, lock_version: response.body.lock_version, secrets: found.secrets };
}

export type SourceKind = 'bucket' | 'rdbms' | 'delta_sharing' | 'analytics_db';

/** The connection each kind reads through in these tests. */
export const CONNECTION_OF: Record<SourceKind, ConnectionLabel> = {
  bucket: 'object_store/secret_key',
  rdbms: 'warehouse/password',
  delta_sharing: 'delta_sharing/delta_sharing_profile',
  analytics_db: 'analytics_db/service_account_key',
};

/** The kind's own fields of a valid request, for the connections of CONNECTION_OF. */
export const KIND_FIELDS: Record<SourceKind, Record<string, unknown>> = {
  bucket: { path: 'demo/sales/2024-01.csv' },
  rdbms: { query: "SELECT region, SUM(amount) AS total FROM sales WHERE note <> 'drop table' GROUP BY region", warehouse: 'COMPUTE_WH' },
  delta_sharing: { share: 'partner', schema: 'retail', table: 'orders' },
  analytics_db: { table_ref: 'acme-bi.sales.`daily totals`' },
};

/** A valid create request of `kind` through `connectionId`. */
export function sourceRequest(kind: SourceKind, connectionId: number, overrides: Record<string, unknown> = {}): Record<string, any> {
  return { name: `${kind} source #${++sequence}`, type: kind, connection_id: connectionId, ...KIND_FIELDS[kind], ...overrides };
}

/** Creates a data source of `kind` through a new connection; answers both. */
export async function createSource(api: ApiClient, s3Endpoint: string, kind: SourceKind, overrides: Record<string, unknown> = {}) {
  const connection = await createConnection(api, s3Endpoint, CONNECTION_OF[kind]);
  const response = await api.post('/data-sources', sourceRequest(kind, connection.id, overrides));
  expect(response.status, response.text).toBe(201);
  return { connection, source: response.body };
}
