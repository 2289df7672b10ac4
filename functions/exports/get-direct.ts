import { StoredDirectExport } from '../../shared/exports/items';
import { directExportStatus } from '../../shared/exports/response';
import { getExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { exportRoutes } from './routes';

export const handler = httpHandler(exportRoutes.getDirect, async ({ params, principal }) => {
  const { item, execution } = await getExportJob(
    principal.tenantId,
    'DIRECT_EXPORT',
    StoredDirectExport,
    params.job_id,
  );
  return { body: directExportStatus(item, execution) };
});
