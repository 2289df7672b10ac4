import { versionResponse } from '../../shared/data-tables/response';
import { dataVersions } from '../../shared/data-tables/versions';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.getVersion, async ({ params, principal }) => {
  return {
    body: versionResponse(await dataVersions.get(principal.tenantId, params.data_table_id, params.version_number)),
  };
});
