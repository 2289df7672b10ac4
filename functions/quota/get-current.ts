import { httpHandler } from '../../shared/http/handler';
import { quotaResponse } from '../../shared/quota/response';
import { activeContract } from '../../shared/quota/store';
import { quotaRoutes } from './routes';

export const handler = httpHandler(quotaRoutes.current, async ({ principal }) => ({
  body: quotaResponse(await activeContract(principal.tenantId)),
}));
