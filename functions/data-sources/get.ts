import { dataSourceResponse } from '../../shared/data-sources/response';
import { dataSourceStore } from '../../shared/data-sources/store';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.get, async ({ params, principal }) => ({
  body: dataSourceResponse(await dataSourceStore.get(principal.tenantId, params.data_source_id)),
}));
