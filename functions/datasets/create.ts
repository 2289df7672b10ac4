import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { graphs } from '../../shared/datasets/graphs';
import { datasetResponse } from '../../shared/datasets/response';
import { datasetStore } from '../../shared/datasets/store';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const actor = actorOf(principal);
  const { entity, replayed } = await datasetStore.create(
    tenantId,
    actor,
    () => ({ name: body.name, description: body.description ?? null, tags: body.tags ?? null }),
    {
      // Graph version 1, empty and draft, exists from the start: a dataset is never without a version.
      related: (id) => graphs.initialWrites(tenantId, actor, id),
      ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
    },
  );
  const latest = (await graphs.latest(tenantId, [entity.id])).get(entity.id);
  return {
    status: 201,
    body: datasetResponse(entity, latest),
    headers: {
      location: `${API_BASE_PATH}/datasets/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
