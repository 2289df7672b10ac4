import { connectionStore } from '../../shared/connections/store';
import { httpHandler } from '../../shared/http/handler';
import { headGoesUnlessTransferring, targetStore } from '../../shared/targets/store';
import { targetRoutes } from './routes';

export const handler = httpHandler(targetRoutes.delete, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  await targetStore.delete(tenantId, params.target_id, {
    expectedLockVersion: query.lock_version,
    // Released from the connection the target uses as it is deleted, not as first read.
    related: (current) => [
      headGoesUnlessTransferring(tenantId, current.id),
      connectionStore.reference(tenantId, current.data.connection_id, 'targets', -1),
    ],
  });
  return { status: 204, body: undefined };
});
