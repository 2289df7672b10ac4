import { issueAccessToken } from '../../shared/auth/access-token';
import { authenticateClient } from '../../shared/identity/clients';
import { AppError, validationError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { authRoutes } from './routes';

/** Client credentials from an HTTP Basic header (RFC 6749 §2.3.1: each part form-encoded). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
  try {
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

export const handler = httpHandler(authRoutes.token, async ({ body, headers }) => {
  const basic = basicCredentials(headers.authorization);
  const clientId = basic?.id ?? body.client_id;
  const secret = basic?.secret ?? body.client_secret;
  if (clientId === undefined || secret === undefined) {
    throw validationError({
      ...(clientId === undefined ? { client_id: 'is required (form field or HTTP Basic)' } : {}),
      ...(secret === undefined ? { client_secret: 'is required (form field or HTTP Basic)' } : {}),
    });
  }
  const principal = await authenticateClient(clientId, secret);
  if (!principal) throw new AppError('10-401', { extraDetails: { reason: 'invalid_client' } });
  return { body: await issueAccessToken(principal), headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
});
