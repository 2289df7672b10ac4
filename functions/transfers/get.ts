import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { transferResponse } from '../../shared/transfers/response';
import { transferExecution, transferStore } from '../../shared/transfers/store';
import { transferRoutes } from './routes';

export const handler = httpHandler(transferRoutes.get, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'transfers');
  const entity = await transferStore.get(principal.tenantId, params.transfer_id);
  return { body: transferResponse(entity, await transferExecution(principal.tenantId, entity)) };
});
