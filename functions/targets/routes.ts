import * as z from 'zod';
import type { ErrorCode } from '../../shared/errors/catalogue';
import { defineRoute } from '../../shared/http/route';
import { integerText } from '../../shared/model/common';
import {
  TargetCreateRequest,
  TargetIdParams,
  TargetList,
  TargetMergePatch,
  TargetResponse,
  TargetUpdateRequest,
} from '../../shared/model/target';
import { targets } from '../../shared/targets/store';

const tag = 'targets';

/** Refusals of a target that does not fit the connection it names (docs/targets.md). */
const DEFINITION_ERRORS: readonly ErrorCode[] = [
  '30-5002',
  '30-5003',
  '30-5004',
  '30-5005',
  '30-5006',
  '30-5007',
  '30-5008',
  '30-5009',
  // Folder paths follow the bucket rules of the connection's store.
  '30-1106',
  '30-1113',
  '30-1115',
  '30-1304',
  '30-1306',
];

export const targetRoutes = {
  create: defineRoute({
    operationId: 'createTarget',
    method: 'POST',
    path: '/targets',
    summary: 'Create an export target',
    description:
      'Where exports write: a folder (bucket, through object_store or cloud_store), a table (table, through warehouse or analytics_db) or a pricing project and table path (pricing, through pricing_dim or pricing_sdk). The connection must exist and allow writing. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'targets/create',
    permission: 'data:write',
    request: { body: TargetCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created target', body: TargetResponse },
    errors: ['10-404', '10-409', '10-1006', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  list: defineRoute({
    operationId: 'listTargets',
    method: 'GET',
    path: '/targets',
    summary: 'List export targets',
    tag,
    handler: 'targets/entity#list',
    permission: 'data:read',
    request: { query: targets.listQuery },
    response: { status: 200, description: 'A page of targets', body: TargetList },
    errors: [],
    access: { table: 'read' },
  }),
  get: defineRoute({
    operationId: 'getTarget',
    method: 'GET',
    path: '/targets/{target_id}',
    summary: 'Get an export target',
    tag,
    handler: 'targets/entity#get',
    permission: 'data:read',
    request: { params: TargetIdParams },
    response: { status: 200, description: 'The target', body: TargetResponse },
    errors: ['10-404'],
    access: { table: 'read' },
  }),
  update: defineRoute({
    operationId: 'updateTarget',
    method: 'PUT',
    path: '/targets/{target_id}',
    summary: 'Update an export target',
    description:
      'Full update, checked against the connection like a create. Refused while an export writes to the target (30-6005).',
    tag,
    handler: 'targets/entity#update',
    permission: 'data:write',
    request: { params: TargetIdParams, body: TargetUpdateRequest },
    response: { status: 200, description: 'The updated target', body: TargetResponse },
    errors: ['10-404', '10-409', '10-1006', '30-5001', '30-6005', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  merge: defineRoute({
    operationId: 'mergeTarget',
    method: 'PATCH',
    path: '/targets/{target_id}',
    summary: 'Merge changes into an export target',
    description:
      'RFC 7396 merge patch: only the fields sent change; null removes an optional field. To change the kind, send the new kind’s fields and null for the old ones. Refused while an export writes to the target (30-6005).',
    tag,
    handler: 'targets/entity#merge',
    permission: 'data:write',
    request: { params: TargetIdParams, body: TargetMergePatch, bodyTypes: ['merge-patch', 'json'] },
    response: { status: 200, description: 'The updated target', body: TargetResponse },
    errors: ['10-404', '10-409', '10-1006', '30-5001', '30-6005', ...DEFINITION_ERRORS],
    access: { table: 'write' },
  }),
  delete: defineRoute({
    operationId: 'deleteTarget',
    method: 'DELETE',
    path: '/targets/{target_id}',
    summary: 'Delete an export target',
    description:
      'Refused while an export writes to the target (30-6005). With lock_version, refused if the target changed since.',
    tag,
    handler: 'targets/delete',
    permission: 'data:write',
    request: {
      params: TargetIdParams,
      query: z.strictObject({
        lock_version: integerText('must be an integer', 0)
          .optional()
          .describe('Current lock_version; refused if the target changed since'),
      }),
    },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '10-1006', '30-6005'],
    access: { table: 'write' },
  }),
};
