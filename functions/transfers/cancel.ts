import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { transferJob } from '../../shared/transfers/jobs';
import { transferResponse } from '../../shared/transfers/response';
import { transferExecution, transferRef, transferStore } from '../../shared/transfers/store';
import { transferCancelRoutes } from './cancel-routes';

/** Cancels a transfer (shared/jobs/cancel.ts) and answers it as GET does. */
export const handler = httpHandler(transferCancelRoutes.cancel, async ({ params, principal }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'transfers');
  await cancelJob(transferJob, async () => {
    const entity = await transferStore.get(tenantId, params.transfer_id);
    const execution = entity.mirrors.execution;
    if (!execution) throw new Error(`transfer ${entity.id} has no execution`);
    return { ref: transferRef(tenantId, entity.id, execution.job_id, entity.data.target_id), execution };
  });
  const entity = await transferStore.get(tenantId, params.transfer_id);
  return { body: transferResponse(entity, await transferExecution(tenantId, entity)) };
});
