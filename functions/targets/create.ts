import { connectionStore } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import { API_BASE_PATH } from '../../shared/config';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { targetData } from '../../shared/targets/definition';
import { targetResponse } from '../../shared/targets/response';
import { targetStore } from '../../shared/targets/store';
import { targetRoutes } from './routes';

export const handler = httpHandler(targetRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const connection = await connectionStore.get(tenantId, body.connection_id);
  const data = targetData(body, connection);
  // The target uses its connection (30-1508), validated as read: it must not have changed since (10-1006).
  const { entity, replayed } = await targetStore.create(tenantId, actorOf(principal), () => data, {
    related: [
      connectionStore.reference(tenantId, body.connection_id, 'targets', 1, {
        seenLockVersion: connection.lock_version,
      }),
    ],
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  return {
    status: 201,
    body: targetResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/targets/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
