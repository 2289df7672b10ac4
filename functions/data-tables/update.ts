import { actorOf } from '../../shared/db/actor';
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
  const next = { name: body.name, description: body.description ?? null, tags: body.tags ?? null, data_source_id: body.data_source_id };
  const moved = next.data_source_id !== current.data.data_source_id;
  const updated = await dataTableStore.replace(tenantId, actorOf(principal), current, body.lock_version, next, {
    related: moved
      ? [dataSourceStore.reference(tenantId, next.data_source_id, 'data_tables', 1), dataSourceStore.reference(tenantId, current.data.data_source_id, 'data_tables', -1)]
      : [],
  });
  return { body: await new DataTableViews(tenantId).of(updated) };
});
