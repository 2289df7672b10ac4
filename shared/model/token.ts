import * as z from 'zod';
import { PERMISSIONS } from '../auth/permissions';
import { listEnvelope } from './common';

/**
 * Tenant tokens (spec 2.10): API clients a tenant makes for itself, each with roles, and the
 * roles they may carry. The secret is in the create answer only; no other schema names it.
 */

/** An `expiration` as a moment: ISO 8601 date-time with its offset, as RFC 3339 writes it. */
export const EXPIRATION_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
/** An `expiration` as an ISO 8601 duration from now, whole numbers: years, months, weeks, days, then T hours, minutes, seconds. */
export const EXPIRATION_DURATION =
  /^P(?:(\d{1,4})Y)?(?:(\d{1,5})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,7})H)?(?:(\d{1,9})M)?(?:(\d{1,11})S)?)?$/;
const unanchored = (pattern: RegExp) => pattern.source.slice(1, -1);

export const TokenCreateRequest = z
  .strictObject({
    description: z.string().trim().max(4000).describe('What the token is for'),
    role_names: z
      .array(z.string().min(1).max(255))
      .min(1)
      .max(50)
      .describe('Names of the roles the token carries; each must name exactly one role (GET /roles)'),
    expiration: z
      .string()
      .max(64)
      .regex(
        new RegExp(`^(?:${unanchored(EXPIRATION_DATE_TIME)}|${unanchored(EXPIRATION_DURATION)})$`),
        'must be an ISO 8601 date-time with offset or an ISO 8601 duration (e.g. P30D)',
      )
      .describe(
        'When the token stops working: an ISO 8601 date-time with offset (`2027-01-31T00:00:00Z`) or an ISO 8601 duration from now (`P30D`, `P1Y`, `PT12H`), in the future and at most 10 years ahead',
      ),
  })
  .meta({ id: 'TokenCreateRequest' });

const tokenFields = {
  client_id: z.string().describe('The client id to exchange at POST /oauth/token'),
  description: z.string().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  role_ids: z.array(z.string()).describe('Ids of the roles the token carries'),
};

export const TokenResponse = z.object(tokenFields).meta({ id: 'TokenResponse' });

export const TokenCreated = z
  .object({
    ...tokenFields,
    secret: z
      .string()
      .optional()
      .describe(
        'The client secret: in this answer only, never again. A replay of the create (same Idempotency-Key) answers without it',
      ),
  })
  .meta({ id: 'TokenCreated' });

export const TokenList = listEnvelope(TokenResponse, 'TokenList');

export const ClientIdParams = z.strictObject({
  client_id: z
    .string()
    .regex(/^[a-z0-9-]{1,63}\.[0-9a-f]{32}$/, 'must be a client id (<tenant>.<32 hex digits>)')
    .describe('Client id of the token'),
});

export const RoleResponse = z
  .object({
    role_id: z.string(),
    name: z.string(),
    permissions: z.array(z.enum(PERMISSIONS)),
    built_in: z.boolean().describe('Seeded by the service and kept as it defines it'),
  })
  .meta({ id: 'RoleResponse' });

export const RoleList = listEnvelope(RoleResponse, 'RoleList');

export type TokenResponse = z.input<typeof TokenResponse>;
