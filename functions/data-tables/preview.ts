import { getText } from '../../shared/aws/data-bucket';
import { VERSION_FILES, versionPrefix } from '../../shared/data-tables/storage';
import { dataVersions } from '../../shared/data-tables/versions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import type { DataRow } from '../../shared/model/columns';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.preview, async ({ params, principal }) => {
  const { tenantId } = principal;
  const { data_table_id: tableId, version_number: versionNumber } = params;
  const version = await dataVersions.get(tenantId, tableId, versionNumber);
  const missing = () => new AppError('20-1040', { params: [tableId] });
  if (version.execution.status !== 'COMPLETED' || !version.metadata) throw missing();
  const text = await getText(versionPrefix(tenantId, tableId, versionNumber) + VERSION_FILES.preview);
  if (text === undefined) throw missing();
  const rows = JSON.parse(text) as DataRow[];
  return {
    body: {
      data_table_id: tableId,
      version_number: versionNumber,
      row_count: version.metadata.row_count,
      columns: [...version.metadata.columns],
      rows,
    },
  };
});
