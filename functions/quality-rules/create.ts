import { actorOf } from '../../shared/db/actor';
import { API_BASE_PATH } from '../../shared/config';
import { requireFeature } from '../../shared/features/store';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { qualityRuleData } from '../../shared/quality-targets/definition';
import { qualityRuleResponse } from '../../shared/quality/entity';
import { qualityRuleStore } from '../../shared/quality/store';
import { qualityRuleRoutes } from './routes';

export const handler = httpHandler(qualityRuleRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'data_quality');
  const data = await qualityRuleData(tenantId, body);
  const { entity, replayed } = await qualityRuleStore.create(tenantId, actorOf(principal), () => data, {
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  return {
    status: 201,
    body: qualityRuleResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/quality-rules/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
