import { httpHandler } from '../../shared/http/handler';
import { createTenant } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.createTenant, async ({ body, principal }) => {
  const { tenant, admin } = await createTenant(body, principal.clientId);
  return { body: { ...tenant, admin_client: admin }, headers: { 'cache-control': 'no-store' } };
});
