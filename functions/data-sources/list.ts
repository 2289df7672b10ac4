import { dataSourceResponse } from '../../shared/data-sources/response';
import { dataSourceStore, type DataSourceData } from '../../shared/data-sources/store';
import type { Entity } from '../../shared/db/entity-store';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { DATA_SOURCE_LIST_FIELDS } from '../../shared/model/list-fields';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

/** What a data source list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Entity<DataSourceData>, typeof DATA_SOURCE_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  type: { type: 'string', value: (entity) => entity.data.type },
  connection_id: { type: 'integer', value: (entity) => entity.data.connection_id },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(dataSourceRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await dataSourceStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: page.items.map(dataSourceResponse) } };
});
