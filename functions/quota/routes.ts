import { defineRoute } from '../../shared/http/route';
import { quotaContracts } from '../../shared/quota/store';
import {
  QuotaCreateRequest,
  QuotaList,
  QuotaOverageRequest,
  QuotaResponse,
  QuotaUsageResponse,
} from '../../shared/model/quota';

const tag = 'quota';

export const quotaRoutes = {
  create: defineRoute({
    operationId: 'createQuotaContract',
    method: 'POST',
    path: '/quota',
    summary: 'Create a quota contract',
    description:
      'A contract from start_date (inclusive) to end_date (exclusive), UTC days, with its CPU hours and data transfer (GB). Checked in this order: a negative value is 70-7004; one date without the other 70-7002; no dates 10-7003 (no active contract) or 10-409 (the active one covers today); dates without name, cpu_time_hours and data_transfer_gb 70-7005; end before start 70-7001; end on start 70-7006. A window overlapping another contract’s is 10-409 naming it (docs/quota.md). Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'quota/create',
    permission: 'quota:manage',
    request: { body: QuotaCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created contract', body: QuotaResponse },
    errors: ['10-409', '10-1006', '10-7003', '70-7001', '70-7002', '70-7004', '70-7005', '70-7006'],
    access: { table: 'write' },
  }),
  current: defineRoute({
    operationId: 'getCurrentQuotaContract',
    method: 'GET',
    path: '/quota',
    summary: 'Get the current quota contract',
    description: 'The contract whose window holds today (UTC); 10-7003 when there is none.',
    tag,
    handler: 'quota/get-current',
    permission: 'data:read',
    request: {},
    response: { status: 200, description: 'The active contract', body: QuotaResponse },
    errors: ['10-7003'],
    access: { table: 'read' },
  }),
  list: defineRoute({
    operationId: 'listQuotaContracts',
    method: 'GET',
    path: '/quota/contracts',
    summary: 'List quota contracts',
    description: 'Every contract of the tenant, past, current and future.',
    tag,
    handler: 'quota/list',
    permission: 'data:read',
    request: { query: quotaContracts.listQuery },
    response: { status: 200, description: 'A page of contracts', body: QuotaList },
    errors: [],
    access: { table: 'read' },
  }),
  setOverage: defineRoute({
    operationId: 'setQuotaOverage',
    method: 'PUT',
    path: '/quota/overage',
    summary: 'Change the current contract’s overage',
    description:
      'Whether work may still start once the current contract’s CPU or data is used up (20-1043, 20-1042 otherwise); 10-7003 when there is no current contract.',
    tag,
    handler: 'quota/set-overage',
    permission: 'quota:manage',
    request: { body: QuotaOverageRequest },
    response: { status: 200, description: 'The current contract', body: QuotaResponse },
    errors: ['10-1006', '10-7003'],
    access: { table: 'write' },
  }),
  usage: defineRoute({
    operationId: 'getQuotaUsage',
    method: 'GET',
    path: '/quota/usage',
    summary: 'Get the current contract’s usage',
    description:
      'CPU time of the jobs (imports, recipe runs, schema analyses, exports) and bytes that crossed the service’s boundary (read from sources, written to targets and pre-signed URLs) in the current contract’s window, against its limits, with a daily series (docs/quota.md). 10-7003 when there is no current contract.',
    tag,
    handler: 'quota/usage',
    permission: 'data:read',
    request: {},
    response: { status: 200, description: 'Usage and remaining of the current contract', body: QuotaUsageResponse },
    errors: ['10-7003'],
    access: { table: 'read' },
  }),
};
