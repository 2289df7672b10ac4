import { installedApp } from '../../shared/apps/installs';
import { assertOwnApp } from '../../shared/apps/sdk-context';
import { getValue } from '../../shared/apps/values';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { sessionRoutes } from './session-routes';

export const handler = httpHandler(sessionRoutes.getValue, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  assertOwnApp(principal, params.bundle_id);
  await installedApp(principal.tenantId, params.bundle_id);
  return { body: await getValue(principal.tenantId, params.bundle_id, params.key) };
});
