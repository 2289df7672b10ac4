import { connectionStore } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import type { RelatedWrite } from '../../shared/db/entity-store';
import { dataSourceStore } from '../../shared/data-sources/store';
import { dataTableStore } from '../../shared/data-tables/store';
import { DataTableViews } from '../../shared/data-tables/views';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.update, async ({ params, body, principal }) => {
  const { tenantId } = principal;
  if (body.id !== params.data_table_id) throw new AppError('20-1003');
  const current = await dataTableStore.find(tenantId, params.data_table_id);
  if (!current) throw new AppError('20-1002');
  const next = {
    name: body.name,
    description: body.description ?? null,
    tags: body.tags ?? null,
    data_source_id: body.data_source_id,
  };
  const related: RelatedWrite[] = [];
  if (next.data_source_id !== current.data.data_source_id) {
    // The use moves from one data source to the other and, when their connections differ, from
    // one connection to the other (30-1507): each source as read, so neither moved meanwhile.
    const [from, to] = await Promise.all([
      dataSourceStore.get(tenantId, current.data.data_source_id),
      dataSourceStore.get(tenantId, next.data_source_id),
    ]);
    related.push(
      dataSourceStore.reference(tenantId, to.id, 'data_tables', 1, { seenLockVersion: to.lock_version }),
      dataSourceStore.reference(tenantId, from.id, 'data_tables', -1, { seenLockVersion: from.lock_version }),
    );
    if (from.data.connection_id !== to.data.connection_id) {
      related.push(
        connectionStore.reference(tenantId, to.data.connection_id, 'tables', 1),
        connectionStore.reference(tenantId, from.data.connection_id, 'tables', -1),
      );
    }
  }
  const updated = await dataTableStore.replace(tenantId, actorOf(principal), current, body.lock_version, next, {
    related,
  });
  return { body: await new DataTableViews(tenantId).of(updated) };
});
