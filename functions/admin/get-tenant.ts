import { httpHandler } from '../../shared/http/handler';
import { getTenant } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.getTenant, async ({ params }) => ({
  body: await getTenant(params.tenant_id),
}));
