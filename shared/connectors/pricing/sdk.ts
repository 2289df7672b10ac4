import { createHash } from 'node:crypto';
import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import type { SourceConnection } from '../configuration';
import { serviceHost, serviceUrl } from '../endpoint';
import { TokenAnswer } from '../oauth/client-credentials';
import { oauthTokenError, oauthTransportError } from '../oauth/errors';
import { outboundRequest } from '../outbound-http';
import { PricingCallFailure, SDK_CODES, pricingError, tokenFailure } from './errors';
import { pricingExchange, type PricingAnswer } from './http';
import { JWT_BEARER_ASSERTION, clientAssertion } from './jwt';
import { PricingUploadProtocol, type PricingCredential } from './upload-protocol';

/**
 * The pricing system through its SDK endpoint (docs/pricing.md): an access token from
 * `token_url` by private-key JWT client authentication (RFC 7523), a login at `host` with the
 * connection's `service_key` that answers a session, then the upload calls with the session.
 * Sessions are kept per connection in the process while they live and renewed once when a
 * call says one expired. Codes: 30-4101, 30-4102, 30-4005, 30-4103, 30-4100, 30-4104, 30-4105.
 */

/** A session is renewed this long before the SDK said it ends, so that it does not end mid-call. */
const SESSION_MARGIN_MS = 5_000;
/** The lifetime of a session whose login answer did not say. */
const DEFAULT_SESSION_S = 300;

const LoginAnswer = z.object({
  sessionToken: z.string().min(1).max(4096),
  expiresIn: z.number().positive().optional(),
});

interface Session {
  readonly header: string;
  readonly until: number;
}

/** Live sessions by connection (a digest of everything that identifies one), shared by every call of the process. */
const sessions = new Map<string, Promise<Session>>();

/** A refusal of the assertion (invalid_client) blames the key; any other failure keeps the token away (tokenFailure). */
function assertionFailure(error: unknown): AppError {
  if (error instanceof AppError && error.extraDetails?.provider_error === 'invalid_client')
    return new AppError('30-4101', { cause: error, extraDetails: { ...error.extraDetails, cause_code: error.code } });
  return tokenFailure(error);
}

class SdkSession implements PricingCredential {
  private readonly key: string;

  constructor(
    private readonly connection: SourceConnection,
    private readonly base: URL,
    private readonly timeoutMs: number,
  ) {
    const { auth, settings } = connection;
    const identity = [auth.token_url, auth.client_id, auth.kid, auth.scope, auth.host, settings.service_key];
    this.key = createHash('sha256')
      .update(JSON.stringify([...identity, connection.secret]))
      .digest('hex');
  }

  private async accessToken(signal: AbortSignal): Promise<string> {
    const { auth } = this.connection;
    const tokenUrl = auth.token_url ?? '';
    const url = serviceUrl(tokenUrl, 'auth.token_url');
    const clientId = auth.client_id ?? '';
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: JWT_BEARER_ASSERTION,
      client_assertion: await clientAssertion({
        clientId,
        tokenUrl,
        privateKeyPem: this.connection.secret,
        kid: auth.kid ?? '',
      }),
    });
    const scope = auth.scope?.trim();
    if (scope) form.set('scope', scope);
    let response;
    try {
      response = await outboundRequest({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        timeoutMs: this.timeoutMs,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw tokenFailure(oauthTransportError(error));
    }
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      json = undefined;
    }
    if (response.status !== 200) throw assertionFailure(oauthTokenError(response.status, json));
    const token = TokenAnswer.safeParse(json);
    if (!token.success)
      throw new AppError('30-4102', { extraDetails: { provider_status: response.status, reason: 'no access token' } });
    return token.data.access_token;
  }

  private async login(signal: AbortSignal): Promise<Session> {
    const serviceKey = this.connection.settings.service_key;
    const shownHost = this.base.host;
    if (!serviceKey) throw new AppError('30-4104', { params: [shownHost], extraDetails: { reason: 'no service_key' } });
    const authorization = `Bearer ${await this.accessToken(signal)}`;
    let answer: PricingAnswer;
    try {
      answer = await pricingExchange(
        this.base,
        { method: 'POST', path: '/sdk/login', body: JSON.stringify({ serviceKey }), authorization },
        this.timeoutMs,
        signal,
      );
    } catch (error) {
      throw error instanceof PricingCallFailure ? pricingError(error, SDK_CODES, shownHost) : error;
    }
    const details = { provider_status: answer.status };
    if (answer.status >= 500) throw new AppError('30-4100', { params: [shownHost], extraDetails: details });
    if (answer.status < 200 || answer.status > 299)
      throw new AppError('30-4104', { params: [shownHost], extraDetails: details });
    const login = LoginAnswer.safeParse(answer.json);
    if (!login.success) throw new AppError('30-4105', { extraDetails: details });
    const lifetimeMs = (login.data.expiresIn ?? DEFAULT_SESSION_S) * 1000 - SESSION_MARGIN_MS;
    return { header: `Session ${login.data.sessionToken}`, until: Date.now() + Math.max(lifetimeMs, 0) };
  }

  async authorization(signal: AbortSignal, stale?: string): Promise<string> {
    const cached = sessions.get(this.key);
    if (cached) {
      const session = await cached.catch(() => undefined);
      if (session && session.header !== stale && session.until > Date.now()) return session.header;
    }
    const login = this.login(signal);
    sessions.set(this.key, login);
    login.catch(() => {
      // A failed login is not kept: the next call logs in again.
      if (sessions.get(this.key) === login) sessions.delete(this.key);
    });
    return (await login).header;
  }

  expired(answer: PricingAnswer): boolean {
    return /error="?session_expired/i.test(String(answer.headers['www-authenticate'] ?? ''));
  }
}

/** The SDK connector of a pricing_sdk connection (secret: the private key, in clear). */
export function sdkConnector(connection: SourceConnection, timeoutMs: number): PricingUploadProtocol {
  const base = serviceHost(connection.auth.host ?? '', 'auth.host');
  return new PricingUploadProtocol(
    { base, shownHost: base.host, codes: SDK_CODES, timeoutMs },
    new SdkSession(connection, base, timeoutMs),
  );
}
