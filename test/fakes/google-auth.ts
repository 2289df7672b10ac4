/**
 * The Google token services the cloud connectors call, as routes a Google API fake mounts
 * (test/fakes/gcs.ts): the OAuth token endpoint that takes a service-account JWT assertion
 * (RFC 7523, the key file's token_uri), Security Token Service token exchange (RFC 8693) of an
 * identity provider's token, and IAM Credentials generateAccessToken (impersonation). Answers
 * follow Google's: OAuth errors as {error, error_description}, API errors as
 * {error: {code, message, status}}. The access tokens it issues name a service account, which
 * the API fake's permissions are granted to.
 */
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export interface ServiceAccountKeyOptions {
  readonly project: string;
  readonly name?: string;
}

export interface Federation {
  /** The workload identity provider's audience the subject token must be issued for. */
  readonly audience: string;
  /** Whether the identity provider issued the subject token (e.g. OAuthFake.isIssued). */
  readonly isSubjectToken: (token: string) => boolean;
  /** Service accounts the federated identity may impersonate. */
  readonly serviceAccounts: readonly string[];
}

interface Account {
  readonly publicKey: KeyObject;
  readonly keyId: string;
  disabled: boolean;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** A Google API error body ({error: {code, message, errors, status}}). */
export function apiError(
  response: ServerResponse,
  code: number,
  reason: string,
  message: string,
  status: string,
): void {
  sendJson(response, code, { error: { code, message, errors: [{ message, domain: 'global', reason }], status } });
}

export class GoogleAuthFake {
  private readonly accounts = new Map<string, Account>();
  private readonly federations: Federation[] = [];
  /** Federated tokens → the federation that got them. */
  private readonly federated = new Map<string, Federation>();
  /** Access tokens → the service account they act as, and the scopes they were issued for. */
  private readonly tokens = new Map<string, { readonly email: string; readonly scopes: readonly string[] }>();

  /** @param root the fake's base URL; the key files' token_uri is `${root}/token`. */
  constructor(private readonly root: string) {}

  get tokenUri(): string {
    return `${this.root}/token`;
  }

  /** A new service account with a key; answers the key file as Google writes it. */
  addServiceAccount(options: ServiceAccountKeyOptions): { readonly email: string; readonly keyJson: string } {
    const email = `${options.name ?? 'loader'}@${options.project}.iam.gserviceaccount.com`;
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyId = randomBytes(20).toString('hex');
    this.accounts.set(email, { publicKey, keyId, disabled: false });
    const keyJson = JSON.stringify({
      type: 'service_account',
      project_id: options.project,
      private_key_id: keyId,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: String(100000000000000000000n + BigInt(this.accounts.size)),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUri,
    });
    return { email, keyJson };
  }

  /** A service account without a key of its own, to be impersonated through a federation. */
  addImpersonationTarget(email: string): void {
    this.accounts.set(email, {
      publicKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey,
      keyId: '',
      disabled: false,
    });
  }

  /** Disables an account: its assertions are refused (invalid_grant), as for a deleted key. */
  disable(email: string): void {
    const account = this.accounts.get(email);
    if (account) account.disabled = true;
  }

  addFederation(federation: Federation): void {
    this.federations.push(federation);
  }

  /** The service account an Authorization header's bearer token acts as. */
  principalOf(authorization: string | undefined): string | undefined {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    return token === undefined ? undefined : this.tokens.get(token)?.email;
  }

  /** The scopes an Authorization header's bearer token was issued for. */
  scopesOf(authorization: string | undefined): readonly string[] {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    return (token === undefined ? undefined : this.tokens.get(token)?.scopes) ?? [];
  }

  /** Serves the token routes; false when the request is not one of them. */
  handle(
    method: string,
    path: string,
    headers: { authorization?: string },
    body: string,
    response: ServerResponse,
  ): boolean {
    if (method !== 'POST') return false;
    if (path === '/token') this.assertion(new URLSearchParams(body), response);
    else if (path === '/v1/token') this.exchange(new URLSearchParams(body), response);
    else {
      const email = /^\/v1\/projects\/-\/serviceAccounts\/([^/]+):generateAccessToken$/.exec(path)?.[1];
      if (email === undefined) return false;
      this.impersonate(decodeURIComponent(email), headers.authorization, body, response);
    }
    return true;
  }

  /** An access token for `email`, as if its key had been exchanged: lets a test read back through the API. */
  tokenFor(email: string, scopes: readonly string[] = []): string {
    return this.issue(email, scopes);
  }

  private issue(email: string, scopes: readonly string[]): string {
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { email, scopes });
    return token;
  }

  private assertion(form: URLSearchParams, response: ServerResponse): void {
    const refuse = (error: string, description: string) =>
      sendJson(response, 400, { error, error_description: description });
    if (form.get('grant_type') !== JWT_BEARER)
      return refuse('unsupported_grant_type', 'Invalid grant_type: ' + String(form.get('grant_type')));
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (header === undefined || claims === undefined || signature === undefined)
      return refuse('invalid_request', 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    const decoded = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as {
      iss?: string;
      aud?: string;
      exp?: number;
      iat?: number;
      scope?: string;
    };
    const account = this.accounts.get(decoded.iss ?? '');
    if (!account || account.disabled) return refuse('invalid_grant', 'Invalid grant: account not found');
    if (!verify('sha256', Buffer.from(`${header}.${claims}`), account.publicKey, Buffer.from(signature, 'base64url')))
      return refuse('invalid_grant', 'Invalid JWT Signature.');
    const now = Date.now() / 1000;
    if (
      decoded.aud !== this.tokenUri ||
      !decoded.exp ||
      !decoded.iat ||
      decoded.exp < now ||
      decoded.exp - decoded.iat > 3600
    ) {
      return refuse(
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    if (!decoded.scope) return refuse('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    sendJson(response, 200, {
      access_token: this.issue(decoded.iss!, decoded.scope.split(' ')),
      expires_in: 3599,
      token_type: 'Bearer',
    });
  }

  private exchange(form: URLSearchParams, response: ServerResponse): void {
    const refuse = (error: string, description: string) =>
      sendJson(response, 400, { error, error_description: description });
    if (form.get('grant_type') !== TOKEN_EXCHANGE) return refuse('unsupported_grant_type', 'Unsupported grant type');
    const federation = this.federations.find((candidate) => candidate.audience === form.get('audience'));
    if (!federation)
      return refuse('invalid_target', 'The target service indicated by the "audience" parameters is invalid.');
    if (!federation.isSubjectToken(form.get('subject_token') ?? ''))
      return refuse('invalid_grant', 'The subject token is invalid or expired.');
    const token = `sts.${randomBytes(24).toString('base64url')}`;
    this.federated.set(token, federation);
    sendJson(response, 200, {
      access_token: token,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: 3600,
    });
  }

  private impersonate(email: string, authorization: string | undefined, body: string, response: ServerResponse): void {
    const federation = this.federated.get(/^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '');
    if (!federation)
      return apiError(response, 401, 'authError', 'Request had invalid authentication credentials.', 'UNAUTHENTICATED');
    if (!this.accounts.has(email) || !federation.serviceAccounts.includes(email)) {
      return apiError(
        response,
        403,
        'forbidden',
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
        'PERMISSION_DENIED',
      );
    }
    const scope = (JSON.parse(body || '{}') as { scope?: unknown }).scope;
    if (!Array.isArray(scope) || scope.length === 0)
      return apiError(response, 400, 'badRequest', 'Scope required.', 'INVALID_ARGUMENT');
    sendJson(response, 200, {
      accessToken: this.issue(email, scope.map(String)),
      expireTime: new Date(Date.now() + 3600_000).toISOString(),
    });
  }
}
