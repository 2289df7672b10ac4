/**
 * A protocol-level fake of the pricing system's SDK endpoint (docs/pricing.md) with its token
 * server, on 127.0.0.1 random ports. The token server authenticates clients by RFC 7523
 * private-key JWT, verifying the assertion's signature with the public key it holds under the
 * `kid`, and its `aud`, `exp`, `iss`/`sub` and a fresh `jti`; the SDK logs in with a service key
 * and answers a session of a short, configurable lifetime. Upload calls are the shared fake's.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { listenLocally, listenSwitchably } from '../../infra/local/fakes/local-server';
import {
  PricingUploads,
  readBody,
  sendJson,
  type CommittedTable,
  type FakeTable,
  type HostFailure,
  type PricingReceived,
} from '../../infra/local/fakes/pricing-uploads';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * Failures besides the host's (HostFailure): `no-token` (200 without a token), `token-server-error`
 * (500), `login-server-error` (the login answers 500), `no-session-token` (the login answers 200
 * without one), `expire-sessions` (every session given so far ends now, and while it lasts
 * every new one is born expired), `unreachable` (nothing
 * listens at the SDK's port).
 */
export type PricingSdkFailure =
  | HostFailure
  | { readonly kind: 'no-token' }
  | { readonly kind: 'token-server-error' }
  | { readonly kind: 'login-server-error' }
  | { readonly kind: 'no-session-token' }
  | { readonly kind: 'expire-sessions' }
  | { readonly kind: 'unreachable' };

/** Why the token server refused an assertion, as it records it (the client hears only invalid_client). */
export interface AssertionRecord {
  readonly accepted: boolean;
  readonly reason: string;
}

export interface PricingSdkFake {
  readonly tokenUrl: string;
  /** The connection's auth.host: http://127.0.0.1:<port>. */
  readonly host: string;
  readonly clientId: string;
  readonly kid: string;
  /** The client's key (PKCS #8 PEM), whose public half the token server holds under `kid`. */
  readonly privateKeyPem: string;
  readonly serviceKey: string;
  readonly received: PricingReceived;
  readonly assertions: readonly AssertionRecord[];
  /** Logins answered with a session, in order. */
  readonly logins: readonly { readonly sessionToken: string }[];
  /** Upload calls refused for their session, as "METHOD /path challenge". */
  readonly sessionRefusals: readonly string[];
  fail(failure: PricingSdkFailure | undefined): Promise<void>;
  setTable(project: string, table: string, limits: Partial<FakeTable>): void;
  committed(project: string, table: string): CommittedTable | undefined;
  stop(): Promise<void>;
}

export interface PricingSdkOptions {
  /** Seconds a session lives (the login's expiresIn); default 900. */
  readonly sessionLifetimeSeconds?: number;
}

/** A fresh RSA key pair as the tests and the fake use it. */
export function rsaKeyPair(): { privateKeyPem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
}

const refuse = (response: ServerResponse, description: string) =>
  sendJson(response, 401, { error: 'invalid_client', error_description: description });

export async function startPricingSdk(options: PricingSdkOptions = {}): Promise<PricingSdkFake> {
  const clientId = 'pricing-sdk-client';
  const kid = 'key-2024-01';
  const serviceKey = 'svc-key-0123456789';
  const { privateKeyPem, publicKey } = rsaKeyPair();
  const lifetimeS = options.sessionLifetimeSeconds ?? 900;
  const assertions: AssertionRecord[] = [];
  const logins: { sessionToken: string }[] = [];
  const sessionRefusals: string[] = [];
  const accessTokens = new Set<string>();
  const sessions = new Map<string, number>();
  const seenJti = new Set<string>();
  const uploads = new PricingUploads();
  let failure: PricingSdkFailure | undefined;
  let tokenUrl = '';

  const verifyAssertion = async (form: URLSearchParams): Promise<string> => {
    if (form.get('grant_type') !== 'client_credentials') return 'grant_type';
    if (form.get('client_assertion_type') !== ASSERTION_TYPE) return 'client_assertion_type';
    const assertion = form.get('client_assertion') ?? '';
    try {
      if (decodeProtectedHeader(assertion).kid !== kid) return 'unknown kid';
      const { payload } = await jwtVerify(assertion, publicKey, {
        algorithms: ['RS256'],
        audience: tokenUrl,
        issuer: clientId,
        subject: clientId,
        requiredClaims: ['exp', 'jti'],
        maxTokenAge: '10 minutes',
      });
      if (seenJti.has(payload.jti!)) return 'jti reused';
      seenJti.add(payload.jti!);
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code ?? 'invalid assertion';
    }
  };

  const token = async (request: IncomingMessage, response: ServerResponse) => {
    const form = new URLSearchParams(await readBody(request));
    if (failure?.kind === 'token-server-error') return sendJson(response, 500, { error: 'server_error' });
    const reason = await verifyAssertion(form);
    assertions.push({ accepted: reason === 'ok', reason });
    if (reason !== 'ok') return refuse(response, `client assertion refused: ${reason}`);
    if (failure?.kind === 'no-token') return sendJson(response, 200, { token_type: 'Bearer', expires_in: 300 });
    const accessToken = randomBytes(24).toString('base64url');
    accessTokens.add(accessToken);
    return sendJson(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300 });
  };

  const login = async (request: IncomingMessage, response: ServerResponse) => {
    const body = (JSON.parse((await readBody(request)) || '{}') ?? {}) as { serviceKey?: unknown };
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (failure?.kind === 'login-server-error') return sendJson(response, 500, { error: 'internal', message: '' });
    if (!bearer || !accessTokens.has(bearer)) return sendJson(response, 401, { error: 'invalid_token', message: '' });
    if (body.serviceKey !== serviceKey) return sendJson(response, 403, { error: 'invalid_service_key', message: '' });
    if (failure?.kind === 'no-session-token') return sendJson(response, 200, { expiresIn: lifetimeS });
    const sessionToken = randomBytes(24).toString('base64url');
    sessions.set(sessionToken, failure?.kind === 'expire-sessions' ? 0 : Date.now() + lifetimeS * 1000);
    logins.push({ sessionToken });
    return sendJson(response, 200, { sessionToken, expiresIn: lifetimeS });
  };

  const tokenServer: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (request.method !== 'POST' || path !== '/oauth2/token') return sendJson(response, 404, { error: 'not_found' });
    token(request, response).catch(() => sendJson(response, 500, { error: 'server_error' }));
  });
  const sdkServer: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'POST' && url.pathname === '/sdk/login')
      return void login(request, response).catch(() => sendJson(response, 400, { error: 'invalid_request' }));
    const session = /^Session (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const until = session === undefined ? undefined : sessions.get(session);
    if (until === undefined || until <= Date.now()) {
      request.resume();
      const challenge = until === undefined ? 'Session error="invalid_session"' : 'Session error="session_expired"';
      sessionRefusals.push(`${request.method} ${url.pathname} ${challenge}`);
      return sendJson(response, 401, { error: 'session_expired', message: '' }, { 'www-authenticate': challenge });
    }
    uploads.handle(request, response, url).catch(() => sendJson(response, 500, { error: 'internal', message: '' }));
  });
  const tokenListening = await listenLocally(tokenServer);
  tokenUrl = `http://127.0.0.1:${tokenListening.port}/oauth2/token`;
  const sdkListening = await listenSwitchably(sdkServer);
  const sdkPort = sdkListening.port;

  return {
    tokenUrl,
    host: `http://127.0.0.1:${sdkPort}`,
    clientId,
    kid,
    privateKeyPem,
    serviceKey,
    received: uploads.received,
    assertions,
    logins,
    sessionRefusals,
    async fail(next) {
      failure = next;
      if (next?.kind === 'expire-sessions') for (const session of sessions.keys()) sessions.set(session, 0);
      const hostFailure =
        next && ['unauthorized', 'server-error', 'bad-json', 'transient', 'reset'].includes(next.kind)
          ? (next as HostFailure)
          : undefined;
      uploads.fail(hostFailure);
      await sdkListening.reachable(next?.kind !== 'unreachable');
    },
    setTable: (project, table, limits) => uploads.setTable(project, table, limits),
    committed: (project, table) => uploads.committed(project, table),
    async stop() {
      await sdkListening.close();
      await tokenListening.close();
    },
  };
}
