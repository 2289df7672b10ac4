/**
 * A protocol-level fake of the pricing system's DIM endpoint (docs/pricing.md) with its OAuth
 * 2.0 token server (oauth.ts), on 127.0.0.1 (random ports unless given). The DIM takes only
 * bearer tokens its token server issued; it keeps what it received and can be told to fail
 * every way the DIM connector names with a code.
 */
import { createServer, type Server } from 'node:http';
import { listenSwitchably } from './local-server';
import { startOAuthFake, type OAuthFake, type TokenRequestRecord } from './oauth';
import {
  PricingUploads,
  sendJson,
  type CommittedTable,
  type FakeTable,
  type HostFailure,
  type PricingReceived,
} from './pricing-uploads';

/**
 * Failures besides the host's (HostFailure): `no-token` (the token server answers 200 without
 * a token), `token-server-error` (500), `unreachable` (nothing listens at the host's port),
 * `expire-tokens` (every token the DIM has seen so far is refused as expired).
 */
export type PricingDimFailure =
  | HostFailure
  | { readonly kind: 'no-token' }
  | { readonly kind: 'token-server-error' }
  | { readonly kind: 'unreachable' }
  | { readonly kind: 'expire-tokens' };

export interface PricingDimFake {
  /** The connection's auth.token_url. */
  readonly tokenUrl: string;
  /** The connection's auth.host: http://127.0.0.1:<port>. */
  readonly host: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  readonly received: PricingReceived;
  readonly tokenRequests: readonly TokenRequestRecord[];
  /** Makes the DIM (or its token server) fail; undefined: everything works again. */
  fail(failure: PricingDimFailure | undefined): Promise<void>;
  /** A table's limits and state for GET /import. */
  setTable(project: string, table: string, limits: Partial<FakeTable>): void;
  committed(project: string, table: string): CommittedTable | undefined;
  stop(): Promise<void>;
}

export interface PricingDimOptions {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope?: string;
  /** The DIM's port on 127.0.0.1; a free one when not given (0). */
  readonly port?: number;
  /** The token server's port on 127.0.0.1; a free one when not given (0). */
  readonly tokenPort?: number;
}

export async function startPricingDim(options: PricingDimOptions = {}): Promise<PricingDimFake> {
  const clientId = options.clientId ?? 'pricing-client';
  const clientSecret = options.clientSecret ?? 'pricing-secret-value';
  const scope = options.scope ?? 'pricing.import';
  const oauth: OAuthFake = await startOAuthFake({
    clients: [{ clientId, clientSecret, scopes: [scope] }],
    style: 'generic',
    path: '/oauth/token',
    port: options.tokenPort,
  });
  const uploads = new PricingUploads();
  const seenTokens = new Set<string>();
  const expiredTokens = new Set<string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token) seenTokens.add(token);
    if (!token || !oauth.isIssued(token) || expiredTokens.has(token)) {
      request.resume();
      return sendJson(
        response,
        401,
        { error: 'invalid_token', message: 'a bearer token of the token server' },
        { 'www-authenticate': 'Bearer error="invalid_token"' },
      );
    }
    uploads.handle(request, response, url).catch(() => sendJson(response, 500, { error: 'internal', message: '' }));
  });
  const listening = await listenSwitchably(server, options.port);
  const port = listening.port;

  return {
    tokenUrl: oauth.tokenUrl,
    host: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    scope,
    received: uploads.received,
    tokenRequests: oauth.requests,
    async fail(failure) {
      oauth.behave(
        failure?.kind === 'no-token' ? 'no-token' : failure?.kind === 'token-server-error' ? 'server-error' : 'normal',
      );
      if (failure?.kind === 'expire-tokens') for (const token of seenTokens) expiredTokens.add(token);
      const hostFailure =
        failure && !['no-token', 'token-server-error', 'unreachable', 'expire-tokens'].includes(failure.kind);
      uploads.fail(hostFailure ? (failure as HostFailure) : undefined);
      await listening.reachable(failure?.kind !== 'unreachable');
    },
    setTable: (project, table, limits) => uploads.setTable(project, table, limits),
    committed: (project, table) => uploads.committed(project, table),
    async stop() {
      await listening.close();
      await oauth.close();
    },
  };
}
