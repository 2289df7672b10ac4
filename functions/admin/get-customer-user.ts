import { httpHandler } from '../../shared/http/handler';
import { customerUserOf, getTenant } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.getCustomerUser, async ({ params }) => ({
  body: await customerUserOf(await getTenant(params.tenant_id), params.client_id),
}));
