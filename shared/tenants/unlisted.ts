import { is } from '../db/expressions';
import { scanItems } from '../db/table';
import { registerTenant } from './create';
import { listTenants, PLATFORM_TENANT } from './store';

/**
 * Tenants made before every tenant came through shared/tenants/create.ts (by `npm run
 * create-client` or the local twin's bootstrap) have clients and data but no registry record,
 * so the admin plane did not know them (issue 38). The twin registers them at every start;
 * it is a scan of the table, for a start or a maintenance run, never for a request.
 */

/** Registers every tenant that has a client but no registry record; the ids it registered, in order. */
export async function registerUnlistedTenants(createdBy: string): Promise<string[]> {
  const clients = await scanItems(is.equal('kind', 'CLIENT'), ['tenant_id']);
  const withClients = new Set(clients.map((item) => String(item.tenant_id)));
  withClients.delete(PLATFORM_TENANT);
  const registered = new Set((await listTenants()).map((tenant) => tenant.tenant_id));
  const unlisted = [...withClients].filter((tenantId) => !registered.has(tenantId)).sort();
  for (const tenantId of unlisted) await registerTenant(tenantId, createdBy);
  return unlisted;
}
