import { actorOf } from '../../shared/db/actor';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { policyResponse, setPolicy } from '../../shared/retention-policy/policy';
import { retentionRoutes } from './routes';

export const handler = httpHandler(retentionRoutes.putPolicy, async ({ body, principal }) => {
  await requireFeature(principal.tenantId, 'retention');
  return { body: policyResponse(await setPolicy(principal.tenantId, actorOf(principal), body)) };
});
