import { connectionStore } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import { API_BASE_PATH } from '../../shared/config';
import { dataSourceData } from '../../shared/data-sources/definition';
import { dataSourceResponse } from '../../shared/data-sources/response';
import { dataSourceStore } from '../../shared/data-sources/store';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const connection = await connectionStore.get(tenantId, body.connection_id);
  const data = dataSourceData(body, connection, body.name);
  // The data source uses its connection: the counter keeps the connection from being deleted.
  const { entity, replayed } = await dataSourceStore.create(tenantId, actorOf(principal), () => data, {
    // Validated against the connection as read: it must not have changed since (10-1006).
    related: [
      connectionStore.reference(tenantId, body.connection_id, 'data_sources', 1, {
        seenLockVersion: connection.lock_version,
      }),
    ],
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  return {
    status: 201,
    body: dataSourceResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/data-sources/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
