import { targetExportJob } from '../../shared/exports/jobs';
import { exportResponse } from '../../shared/exports/target-response';
import { exportExecution, exportStore, targetExportRef } from '../../shared/exports/target-exports';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { exportCancelRoutes } from './cancel-routes';

/** Cancels an export to a target (shared/jobs/cancel.ts) and answers it as GET does. */
export const handler = httpHandler(exportCancelRoutes.cancel, async ({ params, principal }) => {
  const { tenantId } = principal;
  await cancelJob(targetExportJob, async () => {
    const entity = await exportStore.get(tenantId, params.export_id);
    const execution = entity.mirrors.execution;
    if (!execution) throw new Error(`export ${entity.id} has no execution`);
    return { ref: targetExportRef(tenantId, entity.id, execution.job_id, entity.data.target_id), execution };
  });
  const entity = await exportStore.get(tenantId, params.export_id);
  return { body: exportResponse(entity, await exportExecution(tenantId, entity)) };
});
