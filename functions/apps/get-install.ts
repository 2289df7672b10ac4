import { findInstall, installResponse } from '../../shared/apps/installs';
import { assertOwnApp } from '../../shared/apps/sdk-context';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.status, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  assertOwnApp(principal, params.bundle_id);
  return { body: installResponse(params.bundle_id, await findInstall(principal.tenantId, params.bundle_id)) };
});
