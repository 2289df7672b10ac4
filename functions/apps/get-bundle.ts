import { bundleResponse, bundleStore } from '../../shared/apps/bundles';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { bundleRoutes } from './bundle-routes';

export const handler = httpHandler(bundleRoutes.get, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  return { body: bundleResponse(await bundleStore.get(principal.tenantId, params.bundle_id)) };
});
