import * as z from 'zod';
import type { ErrorCode } from '../../shared/errors/catalogue';
import { WAREHOUSE_ERRORS } from '../../shared/connectors/warehouse/errors';
import { defineRoute } from '../../shared/http/route';
import { dataSources } from '../../shared/data-sources/store';
import { integerText } from '../../shared/model/common';
import { ConnectionIdParams } from '../../shared/model/connection';
import {
  DataSourceCreateRequest,
  DataSourceIdParams,
  DataSourceList,
  DataSourceMergePatch,
  DataSourceResponse,
  DataSourceUpdateRequest,
  RdbmsTestQueryRequest,
  RdbmsTestQueryResult,
} from '../../shared/model/data-source';

const tag = 'data-sources';

/** Refusals of a query, checked without calling the warehouse. */
const QUERY_ERRORS: readonly ErrorCode[] = ['30-1004', '30-1007', '30-1009'];

/** Refusals of a definition that does not fit the connection it names. */
const DEFINITION_ERRORS: readonly ErrorCode[] = [
  '10-1043',
  '30-1106',
  '30-1113',
  '30-1115',
  '30-1304',
  '30-1306',
  '30-1419',
  '30-1420',
  '30-1421',
  '30-1422',
  '30-1708',
  '30-3001',
  '30-3011',
  ...QUERY_ERRORS,
];

export const dataSourceRoutes = {
  create: defineRoute({
    operationId: 'createDataSource',
    method: 'POST',
    path: '/data-sources',
    summary: 'Create a data source',
    description:
      'The connection must exist, allow reading and fit the kind: bucket reads through object_store or cloud_store, rdbms through warehouse, delta_sharing and analytics_db through their own types. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'data-sources/create',
    permission: 'data:write',
    request: { body: DataSourceCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created data source', body: DataSourceResponse },
    errors: ['10-404', '10-409', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  list: defineRoute({
    operationId: 'listDataSources',
    method: 'GET',
    path: '/data-sources',
    summary: 'List data sources',
    tag,
    handler: 'data-sources/entity#list',
    permission: 'data:read',
    request: { query: dataSources.listQuery },
    response: { status: 200, description: 'A page of data sources', body: DataSourceList },
    errors: [],
    access: { table: 'read' },
  }),
  get: defineRoute({
    operationId: 'getDataSource',
    method: 'GET',
    path: '/data-sources/{data_source_id}',
    summary: 'Get a data source',
    tag,
    handler: 'data-sources/entity#get',
    permission: 'data:read',
    request: { params: DataSourceIdParams },
    response: { status: 200, description: 'The data source', body: DataSourceResponse },
    errors: ['10-404'],
    access: { table: 'read' },
  }),
  update: defineRoute({
    operationId: 'updateDataSource',
    method: 'PUT',
    path: '/data-sources/{data_source_id}',
    summary: 'Update a data source',
    description:
      'Full update: absent optional fields are cleared; the type cannot change. Checked against the connection like a create.',
    tag,
    handler: 'data-sources/entity#update',
    permission: 'data:write',
    request: { params: DataSourceIdParams, body: DataSourceUpdateRequest },
    response: { status: 200, description: 'The updated data source', body: DataSourceResponse },
    errors: ['10-404', '10-409', '10-1006', '20-1004', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  merge: defineRoute({
    operationId: 'mergeDataSource',
    method: 'PATCH',
    path: '/data-sources/{data_source_id}',
    summary: 'Merge changes into a data source',
    description: 'RFC 7396 merge patch: only the fields sent change; null removes an optional field.',
    tag,
    handler: 'data-sources/entity#merge',
    permission: 'data:write',
    request: { params: DataSourceIdParams, body: DataSourceMergePatch, bodyTypes: ['merge-patch', 'json'] },
    response: { status: 200, description: 'The updated data source', body: DataSourceResponse },
    errors: ['10-404', '10-409', '10-1006', '20-1004', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  delete: defineRoute({
    operationId: 'deleteDataSource',
    method: 'DELETE',
    path: '/data-sources/{data_source_id}',
    summary: 'Delete a data source',
    description:
      'Refused while data tables use the data source. With lock_version, refused if the data source changed since.',
    tag,
    handler: 'data-sources/delete',
    permission: 'data:write',
    request: {
      params: DataSourceIdParams,
      query: z.strictObject({
        lock_version: integerText('must be an integer', 0)
          .optional()
          .describe('Current lock_version; refused if the data source changed since'),
      }),
    },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '10-1006', '30-1707'],
    access: { table: 'write' },
  }),
  testQuery: defineRoute({
    operationId: 'testRdbmsQuery',
    method: 'POST',
    path: '/connections/{connection_id}/test-query',
    summary: 'Test an rdbms data source query through a warehouse connection',
    description:
      'The query must be one read-only statement; that is checked locally before the warehouse is called. The warehouse then compiles it without running it (nothing is billed): its syntax and every object and column it names are checked against the account, with the warehouse given here or the connection’s.',
    tag,
    handler: 'data-sources/test-query',
    permission: 'data:write',
    request: { params: ConnectionIdParams, body: RdbmsTestQueryRequest },
    response: { status: 200, description: 'The warehouse accepts the query', body: RdbmsTestQueryResult },
    errors: ['10-404', '10-1008', '30-1130', ...QUERY_ERRORS, ...WAREHOUSE_ERRORS],
    access: { table: 'read', dataKey: ['decrypt'] },
  }),
};
