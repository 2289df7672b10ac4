import { httpHandler } from '../../shared/http/handler';
import { targetResponse } from '../../shared/targets/response';
import { targetStore } from '../../shared/targets/store';
import { applyTargetUpdate, assertSameTargetId, mergedTargetDocument } from '../../shared/targets/update';
import { targetRoutes } from './routes';

export const handler = httpHandler(targetRoutes.merge, async ({ params, body, principal }) => {
  assertSameTargetId(params.target_id, body.id);
  const current = await targetStore.get(principal.tenantId, params.target_id);
  return { body: targetResponse(await applyTargetUpdate(principal, current, mergedTargetDocument(current, body))) };
});
