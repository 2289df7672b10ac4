import { uploadVersion } from '../../shared/apps/bundles';
import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { bundleRoutes } from './bundle-routes';

export const handler = httpHandler(bundleRoutes.uploadVersion, async ({ params, body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const version = await uploadVersion(principal.tenantId, actorOf(principal), params.bundle_id, body.files);
  return {
    status: 201,
    body: version,
    headers: { location: `${API_BASE_PATH}/apps/bundles/${params.bundle_id}` },
  };
});
