import { exportResponse } from '../../shared/exports/target-response';
import { exportExecution, exportStore } from '../../shared/exports/target-exports';
import { httpHandler } from '../../shared/http/handler';
import { exportRoutes } from './routes';

export const handler = httpHandler(exportRoutes.get, async ({ params, principal }) => {
  const entity = await exportStore.get(principal.tenantId, params.export_id);
  return { body: exportResponse(entity, await exportExecution(principal.tenantId, entity)) };
});
