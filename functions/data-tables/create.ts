import { API_BASE_PATH } from '../../shared/config';
import { connectionStore } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import { dataSourceStore } from '../../shared/data-sources/store';
import { dataTableStore } from '../../shared/data-tables/store';
import { DataTableViews } from '../../shared/data-tables/views';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const source = await dataSourceStore.get(tenantId, body.data_source_id);
  const { entity, replayed } = await dataTableStore.create(
    tenantId,
    actorOf(principal),
    () => ({
      name: body.name,
      description: body.description ?? null,
      tags: body.tags ?? null,
      data_source_id: body.data_source_id,
    }),
    {
      // The table is a use of its data source (30-1707 while it exists) and, through it, of the
      // source's connection (30-1507): only while the source names that connection (as read).
      related: [
        dataSourceStore.reference(tenantId, source.id, 'data_tables', 1, { seenLockVersion: source.lock_version }),
        connectionStore.reference(tenantId, source.data.connection_id, 'tables', 1),
      ],
      ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
    },
  );
  return {
    status: 201,
    body: await new DataTableViews(tenantId).of(entity),
    headers: {
      location: `${API_BASE_PATH}/data-tables/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
