import { StoredMultiPartExport } from '../../shared/exports/items';
import { multiPartExportJob } from '../../shared/exports/jobs';
import { multiPartExportStatus } from '../../shared/exports/response';
import { exportJobRef, getExportJob, readExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { exportCancelRoutes } from './cancel-routes';

/** Cancels a multi-part export (shared/jobs/cancel.ts) and answers its status as GET does. */
export const handler = httpHandler(exportCancelRoutes.cancelMultiPart, async ({ params, principal }) => {
  const { tenantId } = principal;
  await cancelJob(multiPartExportJob, async () => ({
    ref: exportJobRef(tenantId, 'MULTI_PART_EXPORT', params.job_id),
    execution: (await readExportJob(tenantId, 'MULTI_PART_EXPORT', StoredMultiPartExport, params.job_id)).execution,
  }));
  const { item, execution } = await getExportJob(tenantId, 'MULTI_PART_EXPORT', StoredMultiPartExport, params.job_id);
  return { body: multiPartExportStatus(item, execution) };
});
