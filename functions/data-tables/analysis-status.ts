import { analysisStatus } from '../../shared/data-tables/response';
import { dataVersions } from '../../shared/data-tables/versions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.analysisStatus, async ({ params, principal }) => {
  const { data_table_id: tableId, version_number: versionNumber } = params;
  const status = analysisStatus(await dataVersions.get(principal.tenantId, tableId, versionNumber));
  if (!status) throw new AppError('20-1025', { params: [tableId, versionNumber] });
  return { body: status };
});
