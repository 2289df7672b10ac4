import { dataTableStore } from '../../shared/data-tables/store';
import { DataTableViews } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.get, async ({ params, principal }) => {
  const entity = await dataTableStore.get(principal.tenantId, params.data_table_id);
  return { body: await new DataTableViews(principal.tenantId).of(entity) };
});
