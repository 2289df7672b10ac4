import { connectionResponse } from '../../shared/connections/response';
import { connectionStore } from '../../shared/connections/store';
import { applyUpdate, assertSameId } from '../../shared/connections/update';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.update, async ({ params, body, principal }) => {
  assertSameId(params.connection_id, body.id);
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  return { body: connectionResponse(await applyUpdate(principal, current, body)) };
});
