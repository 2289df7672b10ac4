import { connectionStore } from '../../shared/connections/store';
import { dataSourceStore } from '../../shared/data-sources/store';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.delete, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  await dataSourceStore.delete(tenantId, params.data_source_id, {
    expectedLockVersion: query.lock_version,
    // Released from the connection the data source uses as it is deleted, not as first read.
    related: (current) => [connectionStore.reference(tenantId, current.data.connection_id, 'data_sources', -1)],
  });
  return { status: 204, body: undefined };
});
