import { connectionResponse } from '../../shared/connections/response';
import { connectionStore } from '../../shared/connections/store';
import { applyUpdate, assertSameId, mergedDocument } from '../../shared/connections/update';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.merge, async ({ params, body, principal }) => {
  assertSameId(params.connection_id, body.id);
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  return { body: connectionResponse(await applyUpdate(principal, current, mergedDocument(current, body))) };
});
