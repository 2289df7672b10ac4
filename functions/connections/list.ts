import { connectionResponse } from '../../shared/connections/response';
import { connectionStore, type ConnectionData } from '../../shared/connections/store';
import type { Entity } from '../../shared/db/entity-store';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { CONNECTION_LIST_FIELDS } from '../../shared/model/list-fields';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

/** What a connection list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Entity<ConnectionData>, typeof CONNECTION_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  type: { type: 'string', value: (entity) => entity.data.type },
  read: { type: 'boolean', value: (entity) => entity.data.read },
  write: { type: 'boolean', value: (entity) => entity.data.write },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(connectionRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await connectionStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: page.items.map(connectionResponse) } };
});
