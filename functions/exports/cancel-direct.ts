import { StoredDirectExport } from '../../shared/exports/items';
import { directExportJob } from '../../shared/exports/jobs';
import { directExportStatus } from '../../shared/exports/response';
import { exportJobRef, getExportJob, readExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { exportCancelRoutes } from './cancel-routes';

/** Cancels a direct export (shared/jobs/cancel.ts) and answers its status as GET does. */
export const handler = httpHandler(exportCancelRoutes.cancelDirect, async ({ params, principal }) => {
  const { tenantId } = principal;
  await cancelJob(directExportJob, async () => ({
    ref: exportJobRef(tenantId, 'DIRECT_EXPORT', params.job_id),
    execution: (await readExportJob(tenantId, 'DIRECT_EXPORT', StoredDirectExport, params.job_id)).execution,
  }));
  const { item, execution } = await getExportJob(tenantId, 'DIRECT_EXPORT', StoredDirectExport, params.job_id);
  return { body: directExportStatus(item, execution) };
});
