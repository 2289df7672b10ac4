import { deleteConnection } from '../../shared/data-sources/connection-delete';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.delete, async ({ params, query, principal }) => {
  await deleteConnection(principal.tenantId, params.connection_id, query.lock_version);
  return { status: 204, body: undefined };
});
