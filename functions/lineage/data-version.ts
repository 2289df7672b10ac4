import { dataVersions } from '../../shared/data-tables/versions';
import { httpHandler } from '../../shared/http/handler';
import { downstreamOf } from '../../shared/lineage/downstream';
import { lineageRoutes } from './routes';

export const handler = httpHandler(lineageRoutes.dataVersionLineage, async ({ params, principal }) => {
  // 10-404 for a version that does not exist, as every route of a data version.
  await dataVersions.get(principal.tenantId, params.data_table_id, params.version_number);
  return { body: await downstreamOf(principal.tenantId, params.data_table_id, params.version_number) };
});
