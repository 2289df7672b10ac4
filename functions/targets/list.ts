import type { Entity } from '../../shared/db/entity-store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { TARGET_LIST_FIELDS } from '../../shared/model/list-fields';
import { targetResponse } from '../../shared/targets/response';
import { targetStore, type TargetData } from '../../shared/targets/store';
import { targetRoutes } from './routes';

/** What a target list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Entity<TargetData>, typeof TARGET_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  type: { type: 'string', value: (entity) => entity.data.type },
  connection_id: { type: 'integer', value: (entity) => entity.data.connection_id },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(targetRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await targetStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: page.items.map(targetResponse) } };
});
