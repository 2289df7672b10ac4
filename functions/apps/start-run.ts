import { startRun } from '../../shared/apps/run-actions-start';
import { API_BASE_PATH } from '../../shared/config';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { runRoutes } from './run-routes';

export const handler = httpHandler(runRoutes.startRun, async ({ params, body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const run = await startRun(principal, params.bundle_id, body.action, body.input);
  return {
    status: 201,
    body: run,
    headers: { location: `${API_BASE_PATH}/apps/installs/${params.bundle_id}/runs/${run.run_id}` },
  };
});
