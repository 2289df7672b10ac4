import type * as z from 'zod';
import type { ClientRecord } from '../auth/client-store';
import { isServiceUnavailable } from '../aws/unavailable';
import { PlatformRecords } from '../db/platform-records';
import { AppError, validationError } from '../errors/app-error';
import { createCredentials, type IssuedCredentials } from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { TenantResponse } from '../model/tenant';
import { SealedSecret } from '../secrets/envelope';
import { actAsSystemUser, sealSystemUserSecret } from './system-user';

/**
 * The tenant registry of the admin plane (docs/admin-plane.md): a platform record per tenant
 * created through it, naming the tenant's system user and keeping its secret sealed. The
 * clients themselves live at the identity provider (shared/identity).
 */

/** The tenant of the platform's own operators' clients: it holds no data and cannot be created. */
export const PLATFORM_TENANT = 'platform';

/** A tenant as the registry stores it: what the API shows, and the system user's sealed secret, which it never shows. */
export const TenantRecord = TenantResponse.extend({ system_user_secret: SealedSecret });
export type TenantRecord = Readonly<z.infer<typeof TenantRecord>>;

const tenants = new PlatformRecords('TENANT', TenantRecord);

/**
 * Runs work of the admin plane that needs the platform's store, where the registry and the
 * identity provider live: when that store cannot be reached (or its table is missing), the
 * answer is 502 50-1012, whichever of the two failed first; every other failure is as it was.
 */
export async function throughUpstream<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isServiceUnavailable(error)) throw new AppError('50-1012', { cause: error });
    throw error;
  }
}

export interface NewTenant {
  readonly tenant_id: string;
  readonly name: string;
  readonly description?: string | null | undefined;
}

/**
 * Registers the tenant and provisions its system user and its bootstrap admin client; the
 * admin's secret is returned once. A tenant id in use is 10-409; the platform's is 10-1400.
 */
export function createTenant(
  request: NewTenant,
  createdBy: string,
): Promise<{ readonly tenant: TenantRecord; readonly admin: IssuedCredentials }> {
  const tenantId = request.tenant_id;
  if (tenantId === PLATFORM_TENANT) throw validationError({ tenant_id: `${PLATFORM_TENANT} is reserved` });
  return throughUpstream(async () => {
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
    const tenant: TenantRecord = {
      tenant_id: tenantId,
      name: request.name,
      description: request.description ?? null,
      created_date: new Date().toISOString(),
      created_by: createdBy,
      system_user_client_id: systemUser.client_id,
      system_user_secret: await sealSystemUserSecret(tenantId, systemUser.client_id, systemUser.client_secret),
    };
    // A create that lost a race leaves two clients whose secrets nobody was told.
    if (!(await tenants.create(tenantId, tenant))) throw new AppError('10-409', { params: ['tenant', 'tenant_id'] });
    return { tenant, admin };
  });
}

export function listTenants(): Promise<TenantRecord[]> {
  return throughUpstream(() => tenants.list());
}

/** The registered tenant, or 50-1003. */
export function getTenant(tenantId: string): Promise<TenantRecord> {
  return throughUpstream(async () => {
    const tenant = await tenants.find(tenantId);
    if (!tenant) throw new AppError('50-1003', { extraDetails: { tenant_id: tenantId } });
    return tenant;
  });
}

/** The tenant's system user as the identity provider has it (a look-up, not acting as it), or 50-1007 when its client is gone. */
export function systemUserOf(tenant: TenantRecord): Promise<ClientRecord> {
  return throughUpstream(async () => {
    const client = await identityProvider().findClient(tenant.tenant_id, tenant.system_user_client_id);
    if (!client) throw new AppError('50-1007', { params: [tenant.tenant_id] });
    return client;
  });
}

/**
 * One of the tenant's customer users (any client but its system user), read acting as the
 * tenant's system user (50-1014 when it fails to authenticate); 50-1013 when there is none.
 */
export function customerUserOf(tenant: TenantRecord, clientId: string): Promise<ClientRecord> {
  return throughUpstream(async () => {
    const systemUser = await actAsSystemUser(tenant);
    const client =
      clientId === systemUser.clientId ? undefined : await identityProvider().findClient(systemUser.tenantId, clientId);
    if (!client) throw new AppError('50-1013', { params: [tenant.tenant_id], extraDetails: { client_id: clientId } });
    return client;
  });
}
