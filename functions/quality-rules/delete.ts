import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { qualityRuleStore } from '../../shared/quality/store';
import { qualityRuleRoutes } from './routes';

export const handler = httpHandler(qualityRuleRoutes.delete, async ({ params, query, principal }) => {
  await requireFeature(principal.tenantId, 'data_quality');
  await qualityRuleStore.delete(principal.tenantId, params.rule_id, { expectedLockVersion: query.lock_version });
  return { status: 204, body: undefined };
});
