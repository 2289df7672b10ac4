import { versionView } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.getVersion, async ({ params, principal }) => ({
  body: await versionView(principal.tenantId, params.data_table_id, params.version_number),
}));
