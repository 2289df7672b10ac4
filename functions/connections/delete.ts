import { connectionStore } from '../../shared/connections/store';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.delete, async ({ params, query, principal }) => {
  await connectionStore.delete(principal.tenantId, params.connection_id, { expectedLockVersion: query.lock_version });
  return { status: 204, body: undefined };
});
