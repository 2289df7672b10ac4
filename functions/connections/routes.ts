import * as z from 'zod';
import { connections } from '../../shared/connections/store';
import { WAREHOUSE_ERRORS } from '../../shared/connectors/warehouse/errors';
import type { ErrorCode } from '../../shared/errors/catalogue';
import { defineRoute } from '../../shared/http/route';
import { BrowseRequest, BrowseResponse } from '../../shared/model/browse';
import { integerText, listQuery } from '../../shared/model/common';
import { TABLE_LIST_FIELDS } from '../../shared/model/list-fields';
import {
  ConnectionTableParams,
  MAX_LISTED_TABLES,
  TABLE_CONNECTION_TYPES,
  TableDetails,
  TableDetailsQuery,
  TableList,
} from '../../shared/model/table';
import {
  ConnectionCreateRequest,
  ConnectionIdParams,
  ConnectionList,
  ConnectionMergePatch,
  ConnectionResponse,
  ConnectionTestRequest,
  ConnectionTestResult,
  ConnectionTestStoredRequest,
  ConnectionUpdateRequest,
  TypeMappingUpdateRequest,
} from '../../shared/model/connection';

const tag = 'connections';

/** Refusals of a configuration that is checked without calling the external system. */
const CONFIGURATION_ERRORS: readonly ErrorCode[] = [
  '10-1008',
  '30-1111',
  '30-1113',
  '30-1115',
  '30-1130',
  '30-1304',
  '30-1320',
  '30-1322',
  '30-1415',
  '30-3002',
  '30-3003',
  '30-3004',
  '30-3008',
  '30-3009',
  '30-3014',
  '30-3015',
  '30-3016',
  '30-3018',
  '30-3021',
  '30-4101',
];

/** Failures of calling the external system in a test. */
const CONNECTOR_ERRORS: readonly ErrorCode[] = [
  '10-1501',
  '30-1100',
  '30-1108',
  '30-1110',
  '30-1112',
  '30-1114',
  '30-1116',
  '30-1117',
];

/**
 * A stored delta_sharing connection whose sealed profile cannot be used (shared/connections/secret.ts):
 * empty (30-3019) or of another profile version than the stored copy shows (30-3020).
 */
const STORED_SECRET_ERRORS: readonly ErrorCode[] = ['30-3019', '30-3020'];

/** Failures of reading a connection's tables: its type (30-3001, 10-1501), and BigQuery's, Snowflake's or a Delta Sharing server's answers. */
const TABLE_ERRORS: readonly ErrorCode[] = [
  '10-404',
  '10-1008',
  '10-1501',
  '30-1130',
  '30-1322',
  '30-1413',
  '30-1414',
  '30-1415',
  '30-1416',
  '30-1417',
  '30-3001',
  // A Delta Sharing server's answers (docs/delta-sharing.md, Error codes).
  '30-3005',
  '30-3006',
  '30-3007',
  '30-3010',
  '30-3012',
  '30-3013',
  '30-3017',
  ...WAREHOUSE_ERRORS,
];

/** The connection types that have tables, as the routes' OpenAPI text names them: "analytics_db, warehouse or delta_sharing". */
const TABLE_TYPES_TEXT = `${TABLE_CONNECTION_TYPES.slice(0, -1).join(', ')} or ${TABLE_CONNECTION_TYPES.at(-1)!}`;

export const connectionRoutes = {
  create: defineRoute({
    operationId: 'createConnection',
    method: 'POST',
    path: '/connections',
    summary: 'Create a connection',
    description:
      'Secrets are encrypted at rest and never returned. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'connections/create',
    permission: 'connection:write',
    request: { body: ConnectionCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created connection', body: ConnectionResponse },
    errors: ['10-409', ...CONFIGURATION_ERRORS],
    access: { table: 'write', dataKey: ['encrypt'] },
  }),
  list: defineRoute({
    operationId: 'listConnections',
    method: 'GET',
    path: '/connections',
    summary: 'List connections',
    tag,
    handler: 'connections/entity#list',
    permission: 'connection:read',
    request: { query: connections.listQuery },
    response: { status: 200, description: 'A page of connections', body: ConnectionList },
    errors: [],
    access: { table: 'read' },
  }),
  get: defineRoute({
    operationId: 'getConnection',
    method: 'GET',
    path: '/connections/{connection_id}',
    summary: 'Get a connection',
    tag,
    handler: 'connections/entity#get',
    permission: 'connection:read',
    request: { params: ConnectionIdParams },
    response: { status: 200, description: 'The connection', body: ConnectionResponse },
    errors: ['10-404'],
    access: { table: 'read' },
  }),
  update: defineRoute({
    operationId: 'updateConnection',
    method: 'PUT',
    path: '/connections/{connection_id}',
    summary: 'Update a connection',
    description:
      'Full update. Absent optional fields are cleared, except read and write (kept) and auth (kept). Within the same auth_type an absent secret keeps the stored one.',
    tag,
    handler: 'connections/update#update',
    permission: 'connection:write',
    request: { params: ConnectionIdParams, body: ConnectionUpdateRequest },
    response: { status: 200, description: 'The updated connection', body: ConnectionResponse },
    errors: ['10-404', '10-409', '10-1006', '30-1600', ...CONFIGURATION_ERRORS],
    access: { table: 'write', dataKey: ['encrypt'] },
  }),
  merge: defineRoute({
    operationId: 'mergeConnection',
    method: 'PATCH',
    path: '/connections/{connection_id}',
    summary: 'Merge changes into a connection',
    description: 'RFC 7396 merge patch: only the fields sent change; null removes an optional field.',
    tag,
    handler: 'connections/update#merge',
    permission: 'connection:write',
    request: { params: ConnectionIdParams, body: ConnectionMergePatch, bodyTypes: ['merge-patch', 'json'] },
    response: { status: 200, description: 'The updated connection', body: ConnectionResponse },
    errors: ['10-404', '10-409', '10-1006', '30-1600', ...CONFIGURATION_ERRORS],
    access: { table: 'write', dataKey: ['encrypt'] },
  }),
  delete: defineRoute({
    operationId: 'deleteConnection',
    method: 'DELETE',
    path: '/connections/{connection_id}',
    summary: 'Delete a connection',
    description:
      'Refused while data tables read the connection through its data sources (30-1507) or targets use it (30-1508); with both, 30-1507. Its data sources, which no table reads then, are deleted with it. With lock_version, refused if the connection changed since.',
    tag,
    handler: 'connections/delete',
    permission: 'connection:write',
    request: {
      params: ConnectionIdParams,
      query: z.strictObject({
        lock_version: integerText('must be an integer', 0)
          .optional()
          .describe('Current lock_version; refused if the connection changed since'),
      }),
    },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '10-1006', '30-1507', '30-1508'],
    access: { table: 'write' },
  }),
  test: defineRoute({
    operationId: 'testConnection',
    method: 'POST',
    path: '/connections/test',
    summary: 'Test a connection configuration before saving it',
    tag,
    handler: 'connections/test',
    permission: 'connection:test',
    request: { body: ConnectionTestRequest },
    response: { status: 200, description: 'The configuration works; secrets omitted', body: ConnectionTestResult },
    errors: [...CONFIGURATION_ERRORS, ...CONNECTOR_ERRORS, ...WAREHOUSE_ERRORS],
    access: {},
  }),
  testStored: defineRoute({
    operationId: 'testStoredConnection',
    method: 'POST',
    path: '/connections/{connection_id}/test',
    summary: 'Test a stored connection, optionally with overridden settings',
    description: 'An overridden path restriction must lie inside the stored one.',
    tag,
    handler: 'connections/test-stored',
    permission: 'connection:test',
    request: { params: ConnectionIdParams, body: ConnectionTestStoredRequest },
    response: { status: 200, description: 'The stored connection works', body: ConnectionResponse },
    errors: [
      '10-404',
      '30-1106',
      '30-1306',
      ...CONFIGURATION_ERRORS,
      ...CONNECTOR_ERRORS,
      ...WAREHOUSE_ERRORS,
      ...STORED_SECRET_ERRORS,
    ],
    access: { table: 'read', dataKey: ['decrypt'] },
  }),
  browse: defineRoute({
    operationId: 'browseConnection',
    method: 'POST',
    path: '/connections/{connection_id}/browse',
    summary: 'Browse the folders and files of a bucket connection',
    description:
      'One folder level per call, inside the connection path restriction, in pages of at most max_items folders and files; send metadata.next_continuation_token for the next page.',
    tag,
    handler: 'connections/browse',
    // Browsing reads the user's store with the stored secret: a step of defining data sources.
    permission: 'data:write',
    request: { params: ConnectionIdParams, body: BrowseRequest },
    response: { status: 200, description: 'One page of the folder', body: BrowseResponse },
    errors: [
      '10-404',
      '10-1043',
      '10-1008',
      '30-1106',
      '30-1111',
      '30-1113',
      '30-1115',
      '30-1130',
      ...CONNECTOR_ERRORS,
    ],
    access: { table: 'read', dataKey: ['decrypt'] },
  }),
  listTables: defineRoute({
    operationId: 'listConnectionTables',
    method: 'GET',
    path: '/connections/{connection_id}/tables',
    summary: `List the tables of an ${TABLE_TYPES_TEXT} connection`,
    description: `The tables and views the connection sees: an analytics_db connection's dataset (every dataset of its project when it names none); a warehouse connection's schema, else its database, else the account, as its role sees them; a delta_sharing connection's shared tables, every table of every share the recipient sees (database = the share). Any other connection type has no tables: 30-3001. At most the first ${MAX_LISTED_TABLES} are read from the system; filter, sort and paging apply to them.`,
    tag,
    handler: 'connections/tables',
    // Like browsing: reads the user's system with the stored secret, a step of defining data sources.
    permission: 'data:write',
    request: { params: ConnectionIdParams, query: listQuery(TABLE_LIST_FIELDS) },
    response: { status: 200, description: 'A page of tables', body: TableList },
    errors: [...TABLE_ERRORS, ...STORED_SECRET_ERRORS],
    access: { table: 'read', dataKey: ['decrypt'] },
  }),
  getTable: defineRoute({
    operationId: 'getConnectionTable',
    method: 'GET',
    path: '/connections/{connection_id}/tables/{table_name}',
    summary: `Get the details of one table of an ${TABLE_TYPES_TEXT} connection`,
    description:
      "The name is matched exactly. analytics_db and warehouse: database and schema default to the connection's; an analytics_db connection with a dataset reads only that dataset (30-1422) and only its key's project (30-1421). delta_sharing: database (the share) and schema are required, a table not shared is 30-3012, and the details add the columns of the table's metadata. Any other connection type has no tables: 30-3001.",
    tag,
    handler: 'connections/table',
    permission: 'data:write',
    request: { params: ConnectionTableParams, query: TableDetailsQuery },
    response: { status: 200, description: 'The table', body: TableDetails },
    errors: [...TABLE_ERRORS, ...STORED_SECRET_ERRORS, '30-1421', '30-1422', '30-1425'],
    access: { table: 'read', dataKey: ['decrypt'] },
  }),
  updateTypeMapping: defineRoute({
    operationId: 'updateConnectionTypeMapping',
    method: 'PUT',
    path: '/connections/{connection_id}/type-mapping',
    summary: 'Update the type mapping of a pricing connection',
    tag,
    handler: 'connections/update-type-mapping',
    permission: 'connection:write',
    request: { params: ConnectionIdParams, body: TypeMappingUpdateRequest },
    response: { status: 200, description: 'The updated connection', body: ConnectionResponse },
    errors: ['10-404', '10-1006', '30-1600', '30-4008', '30-4009'],
    access: { table: 'write' },
  }),
};
