import { transferResponse } from './response';
import { storedTransfers, transferExecution } from './store';

/**
 * The transfer entity, its declaration (store.ts) completed. Transfers are started, never
 * updated; each is shown with its job's execution, which fails a job gone silent as it is
 * read (transferExecution).
 */
export const transfers = storedTransfers.with({
  responses: (tenantId, entities) =>
    Promise.all(entities.map(async (entity) => transferResponse(entity, await transferExecution(tenantId, entity)))),
});
