/**
 * Calls and fixtures of the connection update tests (update.test.ts): the update operations bound to
 * the twin's admin client, and the request documents several tests send.
 */
import { expect } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import type { ConnectionCreateRequest } from '../../../shared/model/connection';
import { asBody, type CallOptions, type RequestBody } from '../../support/api-client';
import { connectionCases, type ConnectionCase } from '../../support/connections';
import type { TestTwin } from '../../support/harness';

type ObjectStoreRequest = Extract<ConnectionCreateRequest, { type: 'object_store' }>;

/** A valid object-store request over the twin's S3 at `endpoint`, with a description, tags and a path restriction. */
function objectStoreRequest(endpoint: string, name: string): ObjectStoreRequest {
  return {
    name,
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint,
    },
    description: 'initial',
    tags: ['a'],
    path_restriction: 'demo/',
  };
}

/** The connectionCases entry labelled `label` (type/auth_type), its name ending in `suffix`. */
function connectionCase(endpoint: string, label: string, suffix: string): ConnectionCase {
  const found = connectionCases(endpoint, suffix).find((c) => c.label === label);
  if (!found) throw new Error(`no connection case ${label}`);
  return found;
}

/** The identity of a stored connection that a merge patch repeats: id, lock_version and type. */
interface StoredConnection {
  readonly id: number;
  readonly lock_version: number;
  readonly type: ConnectionCreateRequest['type'];
}

/**
 * The connection update calls and requests of `twin()`, through its admin client: a getter, because the twin
 * starts in beforeAll, after the test module has bound these.
 */
export function connectionUpdateCalls(twin: () => TestTwin) {
  const api = () => twin().admin;
  let sequence = 0;
  const put = (id: number, body: CallOptions<'updateConnection'>['body']) =>
    api().call('updateConnection', { params: { connection_id: id }, body });
  const patch = (id: number, body: CallOptions<'mergeConnection'>['body'], contentType?: string) =>
    api().call('mergeConnection', {
      params: { connection_id: id },
      body,
      ...(contentType === undefined ? {} : { contentType }),
    });
  return {
    /** An object-store request over the twin's S3, named uniquely unless `name` is given. */
    objectStore: (name = `store ${++sequence}`) => objectStoreRequest(twin().twin.s3.endpoint, name),
    /** The connectionCases entry labelled `label` (type/auth_type), its name ending in `suffix`. */
    connectionCase: (label: string, suffix: string) => connectionCase(twin().twin.s3.endpoint, label, suffix),
    /** Creates the connection, expecting 201, and returns it. */
    create: async (request: ConnectionCreateRequest) => {
      const response = await api().call('createConnection', { body: request });
      expect(response.status).toBe(201);
      return response.body;
    },
    put,
    /** A connection read back and sent as a full update, with `changes`. */
    putBack: (connection: { id: number }, changes: object = {}) =>
      put(connection.id, asBody('updateConnection', { ...connection, ...changes })),
    patch,
    /** A merge patch of `connection` carrying its id, lock_version and type, then `changes`. */
    merge: (connection: StoredConnection, changes: object, contentType?: string) =>
      patch(
        connection.id,
        asBody('mergeConnection', {
          id: connection.id,
          lock_version: connection.lock_version,
          type: connection.type,
          ...changes,
        }),
        contentType,
      ),
    testStored: (id: number, body: CallOptions<'testStoredConnection'>['body']) =>
      api().call('testStoredConnection', { params: { connection_id: id }, body }),
    /** A type-mapping update of `connection` carrying its id and lock_version, then `changes`. */
    putMapping: (
      connection: Omit<StoredConnection, 'type'>,
      changes: Partial<RequestBody<'updateConnectionTypeMapping'>>,
    ) =>
      api().call('updateConnectionTypeMapping', {
        params: { connection_id: connection.id },
        body: asBody('updateConnectionTypeMapping', {
          id: connection.id,
          lock_version: connection.lock_version,
          ...changes,
        }),
      }),
  };
}

const BUILT_CONNECTORS = ['object_store', 'warehouse', 'cloud_store', 'analytics_db', 'pricing_sdk'] as const;

/** Whether the request's connector is built, so that testing its configuration reaches the external system. */
export function hasBuiltConnector(
  request: ConnectionCreateRequest,
): request is Extract<ConnectionCreateRequest, { type: (typeof BUILT_CONNECTORS)[number] }> {
  return (BUILT_CONNECTORS as readonly string[]).includes(request.type);
}

/** Warehouse OAuth client-credentials auth, without its client secret. */
export const WAREHOUSE_OAUTH_AUTH = {
  auth_type: 'oauth_client_credentials',
  token_url: 'https://idp.example.com/token',
  client_id: 'x',
  scope: 's',
  host: 'xy.snowflakecomputing.com',
} as const;

/** A version-2 (OAuth) delta-sharing profile whose client secret is `new-client-secret`. */
export const OAUTH_DELTA_SHARING_PROFILE = JSON.stringify({
  shareCredentialsVersion: 2,
  type: 'oauth_client_credentials',
  endpoint: 'https://other.example.com/ds',
  tokenEndpoint: 'https://idp.example.com/t',
  clientId: 'c',
  clientSecret: 'new-client-secret',
});

/** Service-account keys that are not one: not JSON, not a service account, a private key that is no key. */
export const INVALID_SERVICE_ACCOUNT_KEYS = [
  '{not json',
  '{"type":"user"}',
  JSON.stringify({
    type: 'service_account',
    project_id: 'p',
    client_email: 'a@p.iam.gserviceaccount.com',
    private_key: 'nope',
  }),
];

/** Workload-identity auth whose service-account e-mail names another project than project_id. */
export const MISMATCHED_WORKLOAD_IDENTITY = {
  auth_type: 'workload_identity',
  client_id: 'c',
  client_secret: 's',
  token_url: 'https://sts.example.com/token',
  scope: 'x',
  service_account_email: 'loader@other-project.iam.gserviceaccount.com',
  audience: 'a',
  project_id: 'acme-analytics',
} as const;

/** Delta-sharing profile contents that are not valid, each with the code it is refused with. */
export const INVALID_DELTA_SHARING_PROFILES: readonly (readonly [content: string, code: string])[] = [
  ['', '30-3018'],
  ['{', '30-3002'],
  ['{"endpoint":"https://x.example.com","bearerToken":"t"}', '30-3014'],
  ['{"shareCredentialsVersion":3,"endpoint":"https://x.example.com","bearerToken":"t"}', '30-3016'],
  ['{"shareCredentialsVersion":1,"bearerToken":"t"}', '30-3008'],
  ['{"shareCredentialsVersion":1,"endpoint":"::nope","bearerToken":"t"}', '30-3004'],
  ['{"shareCredentialsVersion":1,"endpoint":"https://x.example.com"}', '30-3009'],
  [
    '{"shareCredentialsVersion":1,"endpoint":"https://x.example.com","bearerToken":"t","expirationTime":"soon"}',
    '30-3003',
  ],
  [
    '{"shareCredentialsVersion":2,"type":"oauth_client_credentials","endpoint":"https://x.example.com","clientId":"c"}',
    '30-3015',
  ],
  ['[1]', '30-3021'],
];
