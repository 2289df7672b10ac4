import type { Entity } from '../../shared/db/entity-store';
import { exportResponse } from '../../shared/exports/target-response';
import { exportExecution, exportStore, type ExportData, type ExportMirrors } from '../../shared/exports/target-exports';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { EXPORT_LIST_FIELDS } from '../../shared/model/list-fields';
import { exportRoutes } from './routes';

/** What an export list can be filtered and sorted by (docs/list-query.md); status is the stored job status. */
const FIELDS: ListFields<Entity<ExportData, ExportMirrors>, typeof EXPORT_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  target_id: { type: 'integer', value: (entity) => entity.data.target_id },
  source_type: { type: 'string', value: (entity) => entity.data.shape.source_type },
  source_id: { type: 'integer', value: (entity) => entity.data.shape.source_id },
  source_version: { type: 'integer', value: (entity) => entity.data.shape.source_version },
  status: { type: 'string', value: (entity) => entity.mirrors.execution?.status ?? null },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(exportRoutes.list, async ({ query, principal }) => {
  const page = applyListQuery(await exportStore.list(principal.tenantId), query, FIELDS);
  return {
    body: {
      ...page,
      items: await Promise.all(
        page.items.map(async (entity) => exportResponse(entity, await exportExecution(principal.tenantId, entity))),
      ),
    },
  };
});
