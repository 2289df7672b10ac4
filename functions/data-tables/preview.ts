import { versionPreview } from '../../shared/data-tables/preview';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.preview, async ({ params, principal }) => {
  const { data_table_id: tableId, version_number: versionNumber } = params;
  const preview = await versionPreview(principal.tenantId, tableId, versionNumber);
  return { body: { data_table_id: tableId, version_number: versionNumber, ...preview } };
});
