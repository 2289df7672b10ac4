import { createPrivateKey, sign } from 'node:crypto';
import * as z from 'zod';
import { config } from '../../config';
import type { ErrorCode } from '../../errors/catalogue';
import type { PublicAuth } from '../configuration';
import { serviceUrl } from '../endpoint';
import { outboundRequest, type OutboundResponse } from '../outbound-http';
import { isNetworkCode, networkReason } from '../../errors/network-reason';
import { readServiceAccountKey } from './credentials';

/**
 * Google access tokens for the cloud connectors, obtained by our own calls rather than the
 * SDKs' auth libraries: google-auth-library sends a service-account assertion to a fixed
 * Google URL (gtoken ignores the key's token_uri) and its transport takes no outbound guard.
 * Every call here goes through the guard and is bounded by the connector timeout; the secret
 * is used inside the call only.
 *
 * - Service-account key: an RS256 JWT assertion (RFC 7523) signed with the key's private key,
 *   posted to the key's token_uri (Google's OAuth endpoint by default).
 * - Workload identity federation, in Google's three steps: (1) the identity provider's token
 *   URL (auth.token_url) issues a token for `audience` to the client (client credentials,
 *   HTTP Basic); (2) Google STS exchanges it for a federated token (RFC 8693); (3) IAM
 *   Credentials turns that into a token of the service account (auth.service_account_email)
 *   with auth.scope.
 */

export type GoogleCredentials =
  | { readonly kind: 'service_account_key'; readonly keyJson: string }
  | {
      readonly kind: 'workload_identity';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly tokenUrl: string;
      readonly scope: string;
      readonly serviceAccountEmail: string;
      readonly audience: string;
      readonly projectId: string;
    };

/** The credentials of a stored or tested cloud connection (secret in clear). */
export function googleCredentialsOf(auth: PublicAuth, secret: string): GoogleCredentials {
  if (auth.auth_type === 'service_account_key') return { kind: 'service_account_key', keyJson: secret };
  const text = (field: string) => auth[field] ?? '';
  return {
    kind: 'workload_identity',
    clientId: text('client_id'),
    clientSecret: secret,
    tokenUrl: text('token_url'),
    scope: text('scope'),
    serviceAccountEmail: text('service_account_email'),
    audience: text('audience'),
    projectId: text('project_id'),
  };
}

/** Which call of the exchange failed. */
export type TokenStep = 'service_account' | 'identity_provider' | 'sts' | 'impersonation';

/**
 * A token call that failed: refused (an HTTP answer), unreachable (a network error code) or
 * silent (timedOut). providerError is the provider's error code or a network failure's reason, never its text.
 */
export class GoogleTokenFailure extends Error {
  constructor(
    readonly step: TokenStep,
    readonly providerError: string,
    readonly providerStatus: number | undefined,
    readonly timedOut: boolean,
    options?: ErrorOptions,
  ) {
    super(
      `${step} token call failed: ${providerError}${providerStatus === undefined ? '' : ` (HTTP ${providerStatus})`}`,
      options,
    );
    this.name = 'GoogleTokenFailure';
  }
}

export interface GoogleToken {
  readonly accessToken: string;
  /** The project the connection works in: the key's, or the connection's for workload identity. */
  readonly projectId: string;
}

export interface TokenOptions {
  /** Scope of a service-account token; workload identity asks for the connection's own scope. */
  readonly scope: string;
  readonly timeoutMs: number;
  /** The code of an unreadable key in the caller's family (checked again: keys were stored by older code too). */
  readonly keyErrorCode: Extract<ErrorCode, '30-1320' | '30-1415'>;
  readonly signal?: AbortSignal;
}

const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

const OAuthToken = z.object({ access_token: z.string().min(1) });
const ImpersonatedToken = z.object({ accessToken: z.string().min(1) });
/** OAuth errors name a code ({error: "invalid_grant"}); Google APIs a status ({error: {status}}). */
const ErrorAnswer = z.object({ error: z.union([z.string(), z.object({ status: z.string().optional() })]) });
const PROVIDER_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export async function googleAccessToken(credentials: GoogleCredentials, options: TokenOptions): Promise<GoogleToken> {
  if (credentials.kind === 'service_account_key') return serviceAccountToken(credentials.keyJson, options);
  const subject = await call('identity_provider', options, {
    url: serviceUrl(credentials.tokenUrl, 'auth.token_url'),
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`,
    },
    form: { grant_type: 'client_credentials', audience: credentials.audience },
    answer: OAuthToken,
  });
  const federated = await call('sts', options, {
    url: new URL(config.googleStsEndpoint),
    form: {
      grant_type: TOKEN_EXCHANGE,
      audience: credentials.audience,
      scope: CLOUD_PLATFORM,
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      subject_token: subject.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    },
    answer: OAuthToken,
  });
  const root = config.googleIamCredentialsEndpoint.replace(/\/+$/, '');
  const impersonated = await call('impersonation', options, {
    url: new URL(
      `${root}/v1/projects/-/serviceAccounts/${encodeURIComponent(credentials.serviceAccountEmail)}:generateAccessToken`,
    ),
    headers: { authorization: `Bearer ${federated.access_token}` },
    json: { scope: credentials.scope.split(/[\s,]+/).filter(Boolean), lifetime: '3600s' },
    answer: ImpersonatedToken,
  });
  return { accessToken: impersonated.accessToken, projectId: credentials.projectId };
}

async function serviceAccountToken(keyJson: string, options: TokenOptions): Promise<GoogleToken> {
  const key = readServiceAccountKey(keyJson, options.keyErrorCode);
  const tokenUri = key.token_uri ?? DEFAULT_TOKEN_URI;
  const url = serviceUrl(tokenUri, 'auth.service_account_key_json.token_uri');
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope: options.scope, aud: tokenUri, iat: now, exp: now + 3600 };
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const signingInput = `${encode(header)}.${encode(claims)}`;
  const signature = sign('sha256', Buffer.from(signingInput), createPrivateKey(key.private_key)).toString('base64url');
  const answer = await call('service_account', options, {
    url,
    form: { grant_type: JWT_BEARER, assertion: `${signingInput}.${signature}` },
    answer: OAuthToken,
  });
  return { accessToken: answer.access_token, projectId: key.project_id };
}

interface TokenCall<T> {
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly form?: Readonly<Record<string, string>>;
  readonly json?: object;
  readonly answer: z.ZodType<T>;
}

async function call<T>(step: TokenStep, options: TokenOptions, request: TokenCall<T>): Promise<T> {
  let response: OutboundResponse;
  try {
    response = await outboundRequest({
      method: 'POST',
      url: request.url,
      headers: {
        ...request.headers,
        'content-type': request.form ? 'application/x-www-form-urlencoded' : 'application/json',
      },
      body: request.form ? new URLSearchParams({ ...request.form }).toString() : JSON.stringify(request.json),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    throw networkFailure(step, error, options.signal);
  }
  const body = parseJson(response.text);
  if (response.status < 200 || response.status > 299)
    throw new GoogleTokenFailure(step, providerCode(body), response.status, false);
  const parsed = request.answer.safeParse(body);
  if (!parsed.success) throw new GoogleTokenFailure(step, 'MalformedAnswer', response.status, false);
  return parsed.data;
}

/** Errors of our side (the guard, an abort by the caller) pass through; network ones name their reason (network-reason.ts). */
function networkFailure(step: TokenStep, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return error;
  const failure = (error ?? {}) as { name?: unknown; code?: unknown };
  if (failure.name === 'TimeoutError')
    return new GoogleTokenFailure(step, 'timeout', undefined, true, { cause: error });
  if (isNetworkCode(failure.code))
    return new GoogleTokenFailure(step, networkReason(failure.code), undefined, false, { cause: error });
  return error;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function providerCode(body: unknown): string {
  const answer = ErrorAnswer.safeParse(body);
  const code = !answer.success
    ? undefined
    : typeof answer.data.error === 'string'
      ? answer.data.error
      : answer.data.error.status;
  return code !== undefined && PROVIDER_CODE.test(code) ? code : 'Unknown';
}
