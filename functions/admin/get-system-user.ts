import { httpHandler } from '../../shared/http/handler';
import { getTenant, systemUserOf } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.getSystemUser, async ({ params }) => ({
  body: await systemUserOf(await getTenant(params.tenant_id)),
}));
