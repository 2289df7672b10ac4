import { installAppJob } from '../../shared/apps/install-job';
import { beginInstall, installResponse } from '../../shared/apps/installs';
import { API_BASE_PATH } from '../../shared/config';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { startJob } from '../../shared/jobs/start';
import { installRoutes } from './install-routes';

/** Claims the install (INSTALLING) and starts its job: 202 with the install; poll its status. */
export const handler = httpHandler(installRoutes.install, async ({ body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const { install, ref } = await beginInstall(principal, body.bundle_id);
  await startJob(installAppJob, ref, { bundle_id: body.bundle_id });
  return {
    status: 202,
    body: installResponse(body.bundle_id, install),
    headers: { location: `${API_BASE_PATH}/apps/installs/${body.bundle_id}` },
  };
});
