import { install, installResponse } from '../../shared/apps/installs';
import { API_BASE_PATH } from '../../shared/config';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.install, async ({ body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const installed = await install(principal, body.bundle_id);
  return {
    status: 201,
    body: installResponse(body.bundle_id, installed),
    headers: { location: `${API_BASE_PATH}/apps/installs/${body.bundle_id}` },
  };
});
