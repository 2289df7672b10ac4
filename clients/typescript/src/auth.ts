/**
 * Access tokens by the OAuth 2.0 client credentials grant (POST /oauth/token), fetched on first
 * use and again before they expire: a call never starts with a token that ends within the
 * margin, so a long wait for a job keeps polling across token lifetimes.
 */
import { ProblemError, problemOf } from './problem.js';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

interface Held {
  readonly token: string;
  /** Epoch milliseconds after which the token is renewed. */
  readonly renewAt: number;
}

/** Fetches and caches one client's access token; concurrent callers share one exchange. */
export class TokenSource {
  private held: Held | undefined;
  private pending: Promise<Held> | undefined;

  constructor(
    private readonly tokenUrl: string,
    private readonly credentials: ClientCredentials,
    private readonly send: (request: Request) => Promise<Response>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for at least the renewal margin. */
  async token(): Promise<string> {
    if (this.held !== undefined && this.now() < this.held.renewAt) return this.held.token;
    this.pending ??= this.exchange().finally(() => (this.pending = undefined));
    this.held = await this.pending;
    return this.held.token;
  }

  /** Drops the cached token (after a 401: it was revoked or the clock was off). */
  invalidate(): void {
    this.held = undefined;
  }

  private async exchange(): Promise<Held> {
    const started = this.now();
    const response = await this.send(
      new Request(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: this.credentials.clientId,
          client_secret: this.credentials.clientSecret,
        }),
      }),
    );
    if (!response.ok) throw new ProblemError(response.status, await problemOf(response), 'POST /oauth/token');
    const body = (await response.json()) as { access_token: string; expires_in: number };
    const lifetime = body.expires_in * 1000;
    // Renew a minute early, or at four fifths of a short lifetime: a request in flight, or a
    // clock a little off, never meets an expired token.
    const margin = Math.min(60_000, lifetime / 5);
    return { token: body.access_token, renewAt: started + lifetime - margin };
  }
}
