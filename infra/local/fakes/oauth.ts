/**
 * A protocol-level fake of an OAuth 2.0 token endpoint (RFC 6749 §4.4, client credentials) on
 * 127.0.0.1, for every connector whose connection names a token URL. It authenticates clients
 * by HTTP Basic or in the form (client_secret_basic and client_secret_post), checks scopes,
 * and answers failures the way real servers do: in the "entra" style with Microsoft Entra ID's
 * error codes and descriptions (which name the wrong value), in the "generic" style with
 * Keycloak's one description for any bad client. `behave` switches it to a broken server.
 * Tokens it issued can be checked by other fakes (`isIssued`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface OAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes the client may ask for; a request may name any subset. */
  readonly scopes: readonly string[];
}

/**
 * How the server behaves: `normal`; `server-error` (500 server_error); `unavailable` (503 with
 * an HTML page, as a proxy in front of it would answer); `hang` (accepts, never answers);
 * `no-token` (200 without an access token).
 */
export type OAuthBehaviour = 'normal' | 'server-error' | 'unavailable' | 'hang' | 'no-token';

export interface OAuthFakeOptions {
  readonly clients: readonly OAuthClient[];
  readonly style?: 'entra' | 'generic';
  /** Path of the token endpoint; anything else answers 404. */
  readonly path?: string;
  /**
   * Demand the `resource` parameter, as Entra ID's v1.0 endpoint does (AADSTS900144): a
   * client-credentials request made for the v2.0 endpoint is then an invalid request.
   */
  readonly requireResource?: boolean;
  /** Port on 127.0.0.1; a free one when not given (0). */
  readonly port?: number;
}

export interface TokenRequestRecord {
  readonly authentication: 'basic' | 'post' | 'none';
  readonly clientId: string | undefined;
  readonly grantType: string | null;
  readonly scope: string | null;
}

export interface OAuthFake {
  /** The token URL, http://127.0.0.1:<port><path>. */
  readonly tokenUrl: string;
  readonly port: number;
  /** Token requests received, in order (secrets left out). */
  readonly requests: TokenRequestRecord[];
  behave(behaviour: OAuthBehaviour): void;
  /** Whether this server issued the token (and it has not expired). */
  isIssued(token: string): boolean;
  close(): Promise<void>;
}

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    ...headers,
  });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

/** Client credentials from an Authorization: Basic header (RFC 6749 §2.3.1: each form-urlencoded). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  return { id: decode(decoded.slice(0, separator)), secret: decode(decoded.slice(separator + 1)) };
}

const ENTRA_TRACE =
  'Trace ID: 0b7c4a36-7f5e-4f43-9d7f-3c1f7f1d2a00 Correlation ID: 5a1f3f2e-0a9b-4bb0-8d71-6f0e0c9b1e11 Timestamp: 2024-05-01 10:00:00Z';

export async function startOAuthFake(options: OAuthFakeOptions): Promise<OAuthFake> {
  const style = options.style ?? 'entra';
  const path = options.path ?? '/oauth2/v2.0/token';
  const requests: TokenRequestRecord[] = [];
  const issued = new Map<string, number>();
  const sockets = new Set<Socket>();
  let behaviour: OAuthBehaviour = 'normal';

  const refuseClient = (response: ServerResponse, clientId: string, wrongSecret: boolean) => {
    if (style === 'generic')
      return answer(response, 401, {
        error: 'invalid_client',
        error_description: 'Invalid client or Invalid client credentials',
      });
    if (wrongSecret) {
      return answer(response, 401, {
        error: 'invalid_client',
        error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'. ${ENTRA_TRACE}`,
        error_codes: [7000215],
      });
    }
    return answer(response, 400, {
      error: 'unauthorized_client',
      error_description: `AADSTS700016: Application with identifier '${clientId}' was not found in the directory 'Contoso'. This can happen if the application has not been installed by the administrator of the tenant. ${ENTRA_TRACE}`,
      error_codes: [700016],
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path) return answer(response, 404, { error: 'not_found' });
    if (request.method !== 'POST')
      return answer(
        response,
        405,
        { error: 'invalid_request', error_description: 'The token endpoint takes POST' },
        { allow: 'POST' },
      );
    const body = await readBody(request);
    const basic = basicCredentials(request.headers.authorization);
    const form = /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')
      ? new URLSearchParams(body)
      : undefined;
    const posted = form?.get('client_id')
      ? { id: form.get('client_id')!, secret: form.get('client_secret') ?? '' }
      : undefined;
    const credentials = basic ?? posted;
    requests.push({
      authentication: basic ? 'basic' : posted ? 'post' : 'none',
      clientId: credentials?.id,
      grantType: form?.get('grant_type') ?? null,
      scope: form?.get('scope') ?? null,
    });

    switch (behaviour) {
      case 'hang':
        return;
      case 'server-error':
        return answer(response, 500, {
          error: 'server_error',
          error_description: 'AADSTS90033: A transient error has occurred. Please try again.',
        });
      case 'unavailable':
        response.writeHead(503, { 'content-type': 'text/html' });
        return response.end('<html><body><h1>503 Service Unavailable</h1></body></html>');
      case 'no-token':
        return answer(response, 200, { token_type: 'Bearer', expires_in: 3599 });
      case 'normal':
        break;
    }

    if (!form)
      return answer(response, 400, {
        error: 'invalid_request',
        error_description: 'The request body must be application/x-www-form-urlencoded.',
      });
    const grantType = form.get('grant_type');
    if (!grantType)
      return answer(response, 400, {
        error: 'invalid_request',
        error_description: "The request body must contain the following parameter: 'grant_type'.",
      });
    if (grantType !== 'client_credentials')
      return answer(response, 400, {
        error: 'unsupported_grant_type',
        error_description: `The grant type ${grantType} is not supported.`,
      });
    if (options.requireResource && !form.get('resource')) {
      return answer(response, 400, {
        error: 'invalid_request',
        error_description: `AADSTS900144: The request body must contain the following parameter: 'resource'. ${ENTRA_TRACE}`,
        error_codes: [900144],
      });
    }
    if (!credentials)
      return answer(
        response,
        401,
        { error: 'invalid_client', error_description: 'Client authentication failed: no credentials were sent.' },
        { 'www-authenticate': 'Basic' },
      );

    const client = options.clients.find((candidate) => candidate.clientId === credentials.id);
    if (!client) return refuseClient(response, credentials.id, false);
    if (client.clientSecret !== credentials.secret) return refuseClient(response, credentials.id, true);

    const requested = (form.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
    const refused = requested.find((scope) => !client.scopes.includes(scope));
    if (refused !== undefined) {
      return answer(response, 400, {
        error: 'invalid_scope',
        error_description:
          style === 'entra'
            ? `AADSTS70011: The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid. ${ENTRA_TRACE}`
            : 'Invalid scopes',
      });
    }
    const token = randomBytes(24).toString('base64url');
    issued.set(token, Date.now() + 3_599_000);
    return answer(response, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => answer(response, 500, { error: 'server_error' }));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    tokenUrl: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    behave(next) {
      behaviour = next;
    },
    isIssued(token) {
      const expires = issued.get(token);
      return expires !== undefined && expires > Date.now();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
