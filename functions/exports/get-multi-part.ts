import { StoredMultiPartExport } from '../../shared/exports/items';
import { multiPartExportStatus } from '../../shared/exports/response';
import { getExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { exportRoutes } from './routes';

export const handler = httpHandler(exportRoutes.getMultiPart, async ({ params, principal }) => {
  const { item, execution } = await getExportJob(
    principal.tenantId,
    'MULTI_PART_EXPORT',
    StoredMultiPartExport,
    params.job_id,
  );
  return { body: multiPartExportStatus(item, execution) };
});
