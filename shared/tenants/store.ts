import * as z from 'zod';
import type { ClientRecord } from '../auth/client-store';
import { isServiceUnavailable } from '../aws/unavailable';
import { PlatformRecords } from '../db/platform-records';
import { AppError } from '../errors/app-error';
import { identityProvider } from '../identity/provider';
import { TenantResponse } from '../model/tenant';
import { SealedSecret } from '../secrets/envelope';
import { actAsSystemUser } from './system-user';

/**
 * The tenant registry of the admin plane (docs/admin-plane.md): a platform record per tenant
 * created through it, naming the tenant's system user and keeping its secret sealed. The
 * clients themselves live at the identity provider (shared/identity).
 */

/** The tenant of the platform's own operators' clients: it holds no data and cannot be created. */
export const PLATFORM_TENANT = 'platform';

/**
 * A tenant as the registry stores it: what the API shows, and what it never shows: the
 * bootstrap admin's client id (an Idempotency-Key replay of the create names it) and the system
 * user's sealed secret.
 */
export const TenantRecord = TenantResponse.extend({
  /** The client made with the tenant (POST /admin/tenants: its bootstrap admin); null for a tenant registered after its clients were made. */
  bootstrap_admin_client_id: z.string().nullable(),
  system_user_secret: SealedSecret,
});
export type TenantRecord = Readonly<z.infer<typeof TenantRecord>>;

/** The registry's records, one per tenant id. */
export const tenantRegistry = new PlatformRecords('TENANT', TenantRecord);

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

export function listTenants(): Promise<TenantRecord[]> {
  return throughUpstream(() => tenantRegistry.list());
}

/** The registered tenant, or 50-1003. */
export function getTenant(tenantId: string): Promise<TenantRecord> {
  return throughUpstream(async () => {
    const tenant = await tenantRegistry.find(tenantId);
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
