import { TOKEN_LABEL } from '../../shared/identity/clients';
import { identityProvider } from '../../shared/identity/provider';
import { notFound } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { tokenResponse } from './response';
import { tokenRoutes } from './routes';

export const handler = httpHandler(tokenRoutes.get, async ({ params, principal }) => {
  // Looked up in the caller's tenant only: another tenant's client id is not found.
  const client = await identityProvider().findClient(principal.tenantId, params.client_id);
  if (!client) throw notFound(TOKEN_LABEL, params.client_id);
  return { body: tokenResponse(client) };
});
