import type { Entity } from '../../shared/db/entity-store';
import { applyListQuery, type ListFields } from '../../shared/db/list-query';
import { dataTableStore, type DataTableData } from '../../shared/data-tables/store';
import { DataTableViews } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

/** What a data table list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Entity<DataTableData>> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  data_source_id: { type: 'integer', value: (entity) => entity.data.data_source_id },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(dataTableRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await dataTableStore.list(principal.tenantId), query, FIELDS);
  const views = new DataTableViews(principal.tenantId);
  return { body: { ...page, items: await Promise.all(page.items.map((entity) => views.of(entity))) } };
});
