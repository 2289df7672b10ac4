import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { TRANSFER_LIST_FIELDS } from '../../shared/model/list-fields';
import { transferResponse } from '../../shared/transfers/response';
import { transferExecution, transferStore, type TransferEntity } from '../../shared/transfers/store';
import { transferRoutes } from './routes';

/** What a transfer list can be filtered and sorted by (docs/list-query.md); status is the stored job status. */
const FIELDS: ListFields<TransferEntity, typeof TRANSFER_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  target_id: { type: 'integer', value: (entity) => entity.data.target_id },
  source_type: { type: 'string', value: (entity) => entity.data.source_type },
  source_id: { type: 'integer', value: (entity) => entity.data.source_id },
  source_version: { type: 'integer', value: (entity) => entity.data.source_version },
  status: { type: 'string', value: (entity) => entity.mirrors.execution?.status ?? null },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

export const handler = httpHandler(transferRoutes.list, async ({ query, principal }) => {
  await requireFeature(principal.tenantId, 'transfers');
  const page = applyListQuery(await transferStore.list(principal.tenantId), query, FIELDS);
  return {
    body: {
      ...page,
      items: await Promise.all(
        page.items.map(async (entity) => transferResponse(entity, await transferExecution(principal.tenantId, entity))),
      ),
    },
  };
});
