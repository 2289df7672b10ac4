import { httpHandler } from '../../shared/http/handler';
import { endpointView } from '../../shared/openlineage/endpoints';
import { getTenant } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

/** A tenant's OpenLineage endpoint as an admin sees it (never the stage's URL). */
export const handler = httpHandler(tenantRoutes.getOpenLineageEndpoint, async ({ params }) => {
  await getTenant(params.tenant_id);
  return { body: await endpointView(params.tenant_id) };
});
