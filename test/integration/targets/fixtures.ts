/**
 * Connections and target bodies for the target tests: one valid create request per kind, each
 * through a connection created over the API with write permission.
 */
import { expect } from 'vitest';
import { asBody, type ApiClient, type RequestBody, type ResponseBody } from '../../support/api-client';
import { createConnection, type ConnectionLabel, type CreatedConnection } from '../data-sources/fixtures';

export type TargetKind = 'bucket' | 'table' | 'pricing';
export type TargetRequest = RequestBody<'createTarget'>;
export type Target = ResponseBody<'getTarget'>;

/** The connection each kind writes through in these tests (object_store restricted to demo/sales/). */
export const CONNECTION_OF: Record<TargetKind, ConnectionLabel> = {
  bucket: 'object_store/secret_key',
  table: 'warehouse/password',
  pricing: 'pricing_dim/oauth_client_credentials',
};

/** The kind's own fields of a valid request, for the connections of CONNECTION_OF. */
export const KIND_FIELDS = {
  bucket: { path: 'demo/sales/exports/{dataset_name}/{date}/' },
  table: { table_name: 'SALES_{dataset_name}_V{version}' },
  pricing: { project_path: '\\Pricing\\Europe', table_path: 'Prices\\{dataset_name}\\' },
} as const satisfies Record<TargetKind, Record<string, string>>;

let sequence = 0;

/** A writable connection of `label`. */
export function writableConnection(
  api: ApiClient,
  s3Endpoint: string,
  label: ConnectionLabel,
  overrides: Record<string, unknown> = {},
): Promise<CreatedConnection> {
  return createConnection(api, s3Endpoint, label, { write: true, ...overrides });
}

/** A valid create request of `kind` through `connectionId`, with `overrides`. */
export function targetRequest(
  kind: TargetKind,
  connectionId: number,
  overrides: Record<string, unknown> = {},
): TargetRequest {
  return asBody('createTarget', {
    name: `${kind} target #${++sequence}`,
    type: kind,
    connection_id: connectionId,
    ...KIND_FIELDS[kind],
    ...overrides,
  });
}

/** Creates a target of `kind` through a new writable connection; answers both. */
export async function createTarget(
  api: ApiClient,
  s3Endpoint: string,
  kind: TargetKind,
  overrides: Record<string, unknown> = {},
) {
  const connection = await writableConnection(api, s3Endpoint, CONNECTION_OF[kind]);
  const response = await api.call('createTarget', { body: targetRequest(kind, connection.id, overrides) });
  expect(response.status, response.text).toBe(201);
  return { connection, target: response.body };
}

/** The target as read, sent back as a full update with `changes`. */
export function sentBack(target: Target, changes: Record<string, unknown> = {}): RequestBody<'updateTarget'> {
  return asBody('updateTarget', { ...target, ...changes });
}
