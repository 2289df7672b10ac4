import { httpHandler } from '../../shared/http/handler';
import { listTenants } from '../../shared/tenants/store';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.listTenants, async () => {
  const items = await listTenants();
  return { body: { offset: 0, limit: items.length, total: items.length, items } };
});
