import { uninstall } from '../../shared/apps/installs';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.uninstall, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  await uninstall(principal.tenantId, params.bundle_id);
  return { body: undefined };
});
