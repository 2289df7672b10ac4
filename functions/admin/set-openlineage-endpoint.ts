import { httpHandler } from '../../shared/http/handler';
import { endpointView } from '../../shared/openlineage/endpoints';
import { setEndpoint } from '../../shared/openlineage/guarded-delivery';
import { getTenant } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

/** Sets a tenant's OpenLineage endpoint, checked by the outbound guard first (guarded-delivery.ts). */
export const handler = httpHandler(tenantRoutes.setOpenLineageEndpoint, async ({ params, body }) => {
  // Only a tenant of the registry has settings (50-1003 otherwise), as with toggle overrides.
  await getTenant(params.tenant_id);
  await setEndpoint(params.tenant_id, body.url);
  return { body: await endpointView(params.tenant_id) };
});
