import { exportExecution, storedExports } from './target-exports';
import { exportResponse } from './target-response';

/**
 * The export entity (to a target), its declaration (target-exports.ts) completed. Exports are
 * created by their start routes and never updated; each is shown with its job's execution,
 * which fails a job gone silent as it is read (exportExecution).
 */
export const targetExports = storedExports.with({
  responses: (tenantId, entities) =>
    Promise.all(entities.map(async (entity) => exportResponse(entity, await exportExecution(tenantId, entity)))),
});
