import type { SourceConnection } from '../configuration';
import { serviceHost } from '../endpoint';
import { requestClientCredentialsToken } from '../oauth/client-credentials';
import { DIM_CODES, tokenFailure } from './errors';
import type { PricingAnswer } from './http';
import { PricingUploadProtocol, type PricingCredential } from './upload-protocol';

/**
 * The pricing system through its DIM endpoint (docs/pricing.md): an OAuth 2.0 client-credentials
 * token from `token_url` (client_secret_basic, as shared/connectors/oauth does it for every
 * connector), then the upload calls at `host` with that bearer token. Codes: 30-4005, 30-4102,
 * 30-4006, 30-4007 and 10-1046.
 */

/** A token is renewed this long before the server said it ends, so that it does not end mid-call. */
const TOKEN_MARGIN_MS = 30_000;

class DimToken implements PricingCredential {
  private current: { readonly header: string; readonly until: number } | undefined;

  constructor(
    private readonly connection: SourceConnection,
    private readonly timeoutMs: number,
  ) {}

  async authorization(_signal: AbortSignal, stale?: string): Promise<string> {
    const current = this.current;
    if (current && current.header !== stale && current.until > Date.now()) return current.header;
    const { auth } = this.connection;
    let token;
    try {
      token = await requestClientCredentialsToken({
        tokenUrl: auth.token_url ?? '',
        clientId: auth.client_id ?? '',
        clientSecret: this.connection.secret,
        scope: auth.scope,
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      throw tokenFailure(error);
    }
    const lifetimeMs = (token.expiresIn ?? 0) * 1000 - TOKEN_MARGIN_MS;
    const header = `Bearer ${token.accessToken}`;
    this.current = { header, until: Date.now() + Math.max(lifetimeMs, 0) };
    return header;
  }

  expired(answer: PricingAnswer): boolean {
    return /error="?invalid_token/i.test(String(answer.headers['www-authenticate'] ?? ''));
  }
}

/** The DIM connector of a pricing_dim connection (secret in clear). */
export function dimConnector(connection: SourceConnection, timeoutMs: number): PricingUploadProtocol {
  const host = connection.auth.host ?? '';
  const base = serviceHost(host, 'auth.host');
  return new PricingUploadProtocol(
    { base, shownHost: base.host, codes: DIM_CODES, timeoutMs },
    new DimToken(connection, timeoutMs),
  );
}
