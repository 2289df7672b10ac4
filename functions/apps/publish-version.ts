import { bundleResponse, publishVersion } from '../../shared/apps/bundles';
import { actorOf } from '../../shared/db/actor';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { bundleRoutes } from './bundle-routes';

export const handler = httpHandler(bundleRoutes.publish, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const bundle = await publishVersion(principal.tenantId, actorOf(principal), params.bundle_id, params.version_number);
  return { body: bundleResponse(bundle) };
});
