import { TOKEN_LABEL } from '../../shared/identity/clients';
import { identityProvider } from '../../shared/identity/provider';
import { notFound } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { tokenRoutes } from './routes';

export const handler = httpHandler(tokenRoutes.delete, async ({ params, principal }) => {
  // In the caller's tenant only: another tenant's client id is not found.
  const deleted = await identityProvider().deleteClient(principal.tenantId, params.client_id);
  if (!deleted) throw notFound(TOKEN_LABEL, params.client_id);
  return { status: 204, body: undefined };
});
