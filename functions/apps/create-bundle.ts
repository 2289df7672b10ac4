import { bundleResponse, bundleStore } from '../../shared/apps/bundles';
import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { bundleRoutes } from './bundle-routes';

export const handler = httpHandler(bundleRoutes.create, async ({ body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const { entity } = await bundleStore.create(principal.tenantId, actorOf(principal), () => ({
    name: body.name,
    description: body.description ?? null,
    published_version: null,
    versions: [],
  }));
  return {
    status: 201,
    body: bundleResponse(entity),
    headers: { location: `${API_BASE_PATH}/apps/bundles/${entity.id}` },
  };
});
