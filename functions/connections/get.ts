import { connectionResponse } from '../../shared/connections/response';
import { connectionStore } from '../../shared/connections/store';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.get, async ({ params, principal }) => ({
  body: connectionResponse(await connectionStore.get(principal.tenantId, params.connection_id)),
}));
