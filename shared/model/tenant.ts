import * as z from 'zod';
import { Description, listEnvelope, Name } from './common';
import { TenantIdText } from './feature-toggle';

/** Tenants of the admin plane (docs/admin-plane.md). */

export const TenantCreateRequest = z
  .strictObject({
    tenant_id: TenantIdText,
    name: Name.describe('Display name of the tenant'),
    description: Description,
  })
  .meta({ id: 'TenantCreateRequest' });

export const TenantIdParams = z.strictObject({ tenant_id: TenantIdText });
export const CustomerUserParams = TenantIdParams.extend({
  client_id: z.string().min(1).max(256).describe('Client id of one of the tenant’s API clients'),
});
export const RoleParams = z.strictObject({ role_name: z.string().min(1).max(100) });

export const TenantResponse = z
  .object({
    tenant_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    created_date: z.iso.datetime(),
    created_by: z
      .string()
      .describe(
        'Client id of the platform admin who created it, or the operator tool that did: create-client, local-twin (docs/admin-plane.md)',
      ),
    system_user_client_id: z.string().describe('The tenant’s system user: the service acting inside the tenant'),
  })
  .meta({ id: 'Tenant' });
export type TenantResponse = z.infer<typeof TenantResponse>;

/** An API client of a tenant as the admin plane shows it: never its secret. */
export const TenantUserResponse = z
  .object({
    tenant_id: z.string(),
    client_id: z.string(),
    description: z.string().nullable(),
    roles: z.array(z.string()).describe('Names of the client’s roles'),
    created_date: z.iso.datetime(),
    expires_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'TenantUser' });

export const TenantCreated = TenantResponse.extend({
  admin_client: z
    .object({
      client_id: z.string(),
      client_secret: z
        .string()
        .optional()
        .describe('In this answer only, never again; a replay of the create (same Idempotency-Key) answers without it'),
    })
    .describe('The tenant’s bootstrap admin client'),
}).meta({ id: 'TenantCreated' });

export const TenantList = listEnvelope(TenantResponse, 'TenantList');

export const RoleResponse = z
  .object({ name: z.string(), permissions: z.array(z.string()) })
  .meta({ id: 'RoleDefinition' });
