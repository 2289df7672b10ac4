import type { ClientRecord } from '../auth/client-store';
import { PlatformRecords } from '../db/platform-records';
import { AppError, validationError } from '../errors/app-error';
import { createCredentials, type IssuedCredentials } from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { TenantResponse } from '../model/tenant';

/**
 * The tenant registry of the admin plane (docs/admin-plane.md): a platform record per tenant
 * created through it, naming the tenant's system user. The clients themselves live at the
 * identity provider (shared/identity).
 */

/** The tenant of the platform's own operators' clients: it holds no data and cannot be created. */
export const PLATFORM_TENANT = 'platform';

const tenants = new PlatformRecords('TENANT', TenantResponse);

export interface NewTenant {
  readonly tenant_id: string;
  readonly name: string;
  readonly description?: string | null | undefined;
}

/**
 * Registers the tenant and provisions its system user and its bootstrap admin client; the
 * admin's secret is returned once. A tenant id in use is 10-409; the platform's is 10-1400.
 */
export async function createTenant(
  request: NewTenant,
  createdBy: string,
): Promise<{ readonly tenant: TenantResponse; readonly admin: IssuedCredentials }> {
  const tenantId = request.tenant_id;
  if (tenantId === PLATFORM_TENANT) throw validationError({ tenant_id: `${PLATFORM_TENANT} is reserved` });
  if (await tenants.find(tenantId)) throw new AppError('10-409', { params: ['tenant', 'tenant_id'] });
  const systemUser = await createCredentials({
    tenantId,
    roleNames: ['system-admin'],
    description: `system user of tenant ${tenantId}`,
  });
  const admin = await createCredentials({
    tenantId,
    roleNames: ['admin'],
    description: `bootstrap admin of tenant ${tenantId}`,
  });
  const tenant: TenantResponse = {
    tenant_id: tenantId,
    name: request.name,
    description: request.description ?? null,
    created_date: new Date().toISOString(),
    created_by: createdBy,
    system_user_client_id: systemUser.client_id,
  };
  // A create that lost a race leaves two clients whose secrets nobody was told.
  if (!(await tenants.create(tenantId, tenant))) throw new AppError('10-409', { params: ['tenant', 'tenant_id'] });
  return { tenant, admin };
}

export function listTenants(): Promise<TenantResponse[]> {
  return tenants.list();
}

/** The registered tenant, or 50-1003. */
export async function getTenant(tenantId: string): Promise<TenantResponse> {
  const tenant = await tenants.find(tenantId);
  if (!tenant) throw new AppError('50-1003', { extraDetails: { tenant_id: tenantId } });
  return tenant;
}

/** The tenant's system user, or 50-1007 when its client is gone. */
export async function systemUserOf(tenant: TenantResponse): Promise<ClientRecord> {
  const client = await identityProvider().findClient(tenant.tenant_id, tenant.system_user_client_id);
  if (!client) throw new AppError('50-1007', { params: [tenant.tenant_id] });
  return client;
}

/** One of the tenant's customer users (any client but its system user), or 50-1013. */
export async function customerUserOf(tenant: TenantResponse, clientId: string): Promise<ClientRecord> {
  const client =
    clientId === tenant.system_user_client_id
      ? undefined
      : await identityProvider().findClient(tenant.tenant_id, clientId);
  if (!client) throw new AppError('50-1013', { params: [tenant.tenant_id], extraDetails: { client_id: clientId } });
  return client;
}
