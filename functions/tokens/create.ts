import { API_BASE_PATH } from '../../shared/config';
import { createClient } from '../../shared/identity/clients';
import { expirationOf } from '../../shared/identity/expiration';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { tokenResponse } from './response';
import { tokenRoutes } from './routes';

export const handler = httpHandler(tokenRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const issued = await createClient({
    tenantId: principal.tenantId,
    roleNames: body.role_names,
    description: body.description,
    expiresAt: expirationOf(body.expiration),
    creator: principal,
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  return {
    status: 201,
    body: { ...tokenResponse(issued.client), ...(issued.replayed ? {} : { secret: issued.secret }) },
    headers: {
      location: `${API_BASE_PATH}/tokens/${issued.client.client_id}`,
      // The answer carries a secret: no cache may keep it.
      'cache-control': 'no-store',
      ...(issued.replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
