import { actorOf } from '../../shared/db/actor';
import { httpHandler } from '../../shared/http/handler';
import { quotaResponse } from '../../shared/quota/response';
import { setOverage } from '../../shared/quota/store';
import { quotaRoutes } from './routes';

export const handler = httpHandler(quotaRoutes.setOverage, async ({ body, principal }) => ({
  body: quotaResponse(await setOverage(principal.tenantId, actorOf(principal), body.overage_allowed)),
}));
