import { uninstallAppJob } from '../../shared/apps/install-job';
import { beginUninstall, installResponse } from '../../shared/apps/installs';
import { API_BASE_PATH } from '../../shared/config';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { startJob } from '../../shared/jobs/start';
import { installRoutes } from './install-routes';

/** Marks the install UNINSTALLING and starts its job: 202 with the install; poll its status. */
export const handler = httpHandler(installRoutes.uninstall, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const { install, ref } = await beginUninstall(principal.tenantId, params.bundle_id);
  await startJob(uninstallAppJob, ref, { bundle_id: params.bundle_id });
  return {
    status: 202,
    body: installResponse(params.bundle_id, install),
    headers: { location: `${API_BASE_PATH}/apps/installs/${params.bundle_id}` },
  };
});
