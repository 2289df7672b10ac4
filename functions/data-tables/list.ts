import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { DATA_TABLE_LIST_FIELDS } from '../../shared/model/list-fields';
import { dataTableStore, type DataTableEntity } from '../../shared/data-tables/store';
import { DataTableViews } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

/** What a data table list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<DataTableEntity, typeof DATA_TABLE_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  data_source_id: { type: 'integer', value: (entity) => entity.data.data_source_id },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

/** One Query for the tables (each carries its latest version), then batches for what they show of their sources. */
export const handler = httpHandler(dataTableRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await dataTableStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: await new DataTableViews(principal.tenantId).ofMany(page.items) } };
});
