/**
 * The valid requests of the connection operations, apart from test/contract/corpus.ts to keep
 * each module small: an object-store connection to a folder of the twin's S3, the fixture
 * connection to read, update and test, and a spare one to delete.
 */
import type { OperationId } from '../../functions/routes';
import { AUDIT_MEMBERS, echo, lockOf, type Base } from './request-base';
import type { JsonValue } from './variations';

/** What the connection requests aim at. */
export interface ConnectionFixtures {
  readonly endpoint: string;
  /** A folder of the twin's S3 with a CSV file: "<bucket>/<folder>/". */
  readonly folder: string;
  readonly connectionId: number;
  readonly spare: { readonly connectionId: number };
  readonly current: { readonly connection: JsonValue };
}

const CONNECTION_TYPES = [
  'warehouse',
  'delta_sharing',
  'pricing_dim',
  'cloud_store',
  'analytics_db',
  'pricing_sdk',
  'OBJECT_STORE',
];

/** The valid request of each connection operation. */
export function connectionBases(f: ConnectionFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  const s3Auth = {
    auth_type: 'secret_key',
    access_key_id: 'S3RVER',
    secret_access_key: 'S3RVER',
    endpoint: f.endpoint,
  };
  const bucket = f.folder.split('/')[0]!;
  const connection = {
    type: 'object_store',
    name: 'contract',
    description: 'a connection',
    tags: ['a'],
    read: true,
    write: false,
    auth: s3Auth,
    path_restriction: `${bucket}/`,
  };
  const connectionId = { connection_id: String(f.connectionId) };
  return {
    createConnection: {
      body: connection,
      enums: { type: CONNECTION_TYPES, auth_type: ['password', 'SECRET_KEY'] },
      bodies: {
        // Lengths count characters (code points) in zod and in JSON Schema alike.
        'name of 255 emoji': { ...connection, name: '\u{1F600}'.repeat(255) },
        'name of 256 emoji': { ...connection, name: '\u{1F600}'.repeat(256) },
        'tags equal once trimmed': { ...connection, tags: [' a', 'a'] },
      },
    },
    listConnections: { query: { limit: '5' } },
    getConnection: { params: connectionId },
    updateConnection: {
      params: connectionId,
      body: echo(f.current.connection, ...AUDIT_MEMBERS),
      bodies: {
        'created_by nested 65 levels': {
          ...(f.current.connection as object),
          created_by: JSON.parse(`${'['.repeat(65)}${']'.repeat(65)}`) as JsonValue,
        },
        'created_by of 300 KiB': { ...(f.current.connection as object), created_by: 'x'.repeat(300 * 1024) },
      },
    },
    mergeConnection: {
      params: connectionId,
      body: {
        id: f.connectionId,
        lock_version: lockOf(f.current.connection),
        type: 'object_store',
        description: 'merged',
        auth: { endpoint: f.endpoint },
      },
      mediaType: 'application/merge-patch+json',
      enums: { type: CONNECTION_TYPES, auth_type: ['secret_key', 'password'] },
    },
    deleteConnection: { params: { connection_id: String(f.spare.connectionId) } },
    testConnection: { body: connection },
    testStoredConnection: {
      params: connectionId,
      body: { type: 'object_store', path_restriction: f.folder },
      enums: { type: CONNECTION_TYPES },
    },
    browseConnection: { params: connectionId, body: { path: f.folder, max_items: 10 } },
    // The fixture connection is an object store: valid requests end in 30-3001.
    listConnectionTables: { params: connectionId, query: {} },
    getConnectionTable: { params: { ...connectionId, table_name: 'orders' }, query: { schema: 'PUBLIC' } },
    updateConnectionTypeMapping: {
      params: connectionId,
      body: {
        id: f.connectionId,
        lock_version: lockOf(f.current.connection),
        type_mapping: '{"a": "string"}',
        type_mapping_name: 'm',
      },
    },
  };
}
