import { installResponse, setEnabled } from '../../shared/apps/installs';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.enable, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  return { body: installResponse(params.bundle_id, await setEnabled(principal.tenantId, params.bundle_id, true)) };
});
