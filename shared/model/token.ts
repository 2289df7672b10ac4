import * as z from 'zod';
import { PERMISSIONS } from '../auth/permissions';
import { listEnvelope } from './common';

/**
 * Tenant tokens (spec 2.10): API clients a tenant makes for itself, each with roles, and the
 * roles they may carry. The secret is in the create answer only; no other schema names it.
 */

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
      .min(1)
      .max(64)
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
