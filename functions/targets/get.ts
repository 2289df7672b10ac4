import { httpHandler } from '../../shared/http/handler';
import { targetResponse } from '../../shared/targets/response';
import { targetStore } from '../../shared/targets/store';
import { targetRoutes } from './routes';

export const handler = httpHandler(targetRoutes.get, async ({ params, principal }) => ({
  body: targetResponse(await targetStore.get(principal.tenantId, params.target_id)),
}));
