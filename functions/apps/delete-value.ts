import { installedApp } from '../../shared/apps/installs';
import { assertOwnApp } from '../../shared/apps/sdk-context';
import { deleteValue } from '../../shared/apps/values';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { sessionRoutes } from './session-routes';

export const handler = httpHandler(sessionRoutes.deleteValue, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  assertOwnApp(principal, params.bundle_id);
  await installedApp(principal.tenantId, params.bundle_id);
  await deleteValue(principal.tenantId, params.bundle_id, params.key);
  return { body: undefined };
});
