import { getRun } from '../../shared/apps/runs';
import { assertOwnApp } from '../../shared/apps/sdk-context';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { runRoutes } from './run-routes';

export const handler = httpHandler(runRoutes.getRun, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  assertOwnApp(principal, params.bundle_id);
  return { body: await getRun(principal.tenantId, params.bundle_id, params.run_id) };
});
