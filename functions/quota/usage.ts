import { httpHandler } from '../../shared/http/handler';
import { activeContract } from '../../shared/quota/store';
import { contractUsage } from '../../shared/quota/usage';
import { quotaRoutes } from './routes';

export const handler = httpHandler(quotaRoutes.usage, async ({ principal }) => {
  const { tenantId } = principal;
  return { body: await contractUsage(tenantId, await activeContract(tenantId)) };
});
