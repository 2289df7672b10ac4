import { defineRoute } from '../../shared/http/route';
import {
  RetentionPolicyRequest,
  RetentionPolicyResponse,
  RetentionPreview,
  RetentionPreviewQuery,
} from '../../shared/model/retention';

const tag = 'retention';
const FEATURE = 'Needs the `retention` feature (10-1501 while it is off for the tenant).';

export const retentionRoutes = {
  getPolicy: defineRoute({
    operationId: 'getRetentionPolicy',
    method: 'GET',
    path: '/retention-policy',
    summary: 'Get the tenant’s retention policy',
    description: `Disabled, with no rule and lock_version 0, until one is set. ${FEATURE}`,
    tag,
    handler: 'retention/get-policy',
    permission: 'data:read',
    request: {},
    response: { status: 200, description: 'The retention policy', body: RetentionPolicyResponse },
    errors: ['10-1501'],
    access: { table: 'read' },
  }),
  putPolicy: defineRoute({
    operationId: 'putRetentionPolicy',
    method: 'PUT',
    path: '/retention-policy',
    summary: 'Set the tenant’s retention policy',
    description: `While enabled, data versions and transformation graph versions the policy may delete show their expiration_date, and the daily sweep deletes them once it has come (docs/retention.md). ${FEATURE}`,
    tag,
    handler: 'retention/put-policy',
    permission: 'data:write',
    request: { body: RetentionPolicyRequest },
    response: { status: 200, description: 'The retention policy as set', body: RetentionPolicyResponse },
    errors: ['10-1501', '10-1006', '20-1060'],
    access: { table: 'write' },
  }),
  preview: defineRoute({
    operationId: 'previewRetentionSweep',
    method: 'GET',
    path: '/retention-policy/preview',
    summary: 'List what a sweep would delete',
    description: `A dry run: the versions whose expiration_date has come by as_of, or by now without it. ${FEATURE}`,
    tag,
    handler: 'retention/preview',
    permission: 'data:read',
    request: { query: RetentionPreviewQuery },
    response: { status: 200, description: 'What a sweep at as_of deletes', body: RetentionPreview },
    errors: ['10-1501'],
    access: { table: 'read' },
  }),
};
