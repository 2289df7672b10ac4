import { API_BASE_PATH } from '../../shared/config';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { createTenant } from '../../shared/tenants/create';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.createTenant, async ({ body, principal, idempotencyKey }) => {
  const idempotency =
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) };
  const created = await createTenant(body, principal.clientId, idempotency);
  const { tenant } = created;
  return {
    status: 201,
    body: {
      ...tenant,
      admin_client: {
        client_id: created.adminClientId,
        ...(created.replayed ? {} : { client_secret: created.adminSecret }),
      },
    },
    headers: {
      location: `${API_BASE_PATH}/admin/tenants/${tenant.tenant_id}`,
      // The answer carries a secret: no cache may keep it.
      'cache-control': 'no-store',
      ...(created.replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
