import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { findPolicy, policyResponse } from '../../shared/retention-policy/policy';
import { retentionRoutes } from './routes';

export const handler = httpHandler(retentionRoutes.getPolicy, async ({ principal }) => {
  await requireFeature(principal.tenantId, 'retention');
  return { body: policyResponse(await findPolicy(principal.tenantId)) };
});
