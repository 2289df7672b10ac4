import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  requestClientCredentialsToken,
  type ClientCredentialsRequest,
} from '../../../../shared/connectors/oauth/client-credentials';
import { oauthTokenError, oauthTransportError } from '../../../../shared/connectors/oauth/errors';
import { AppError } from '../../../../shared/errors/app-error';
import { startOAuthFake, type OAuthFake } from '../../../../infra/local/fakes/oauth';
import { closedLocalPort, type ClosedPort } from '../../../support/closed-port';

/**
 * The client-credentials call against the OAuth fake (every code from an answer the fake
 * really gave), and the mapping of answers other servers give, as data.
 */
const CLIENT = {
  clientId: 'warehouse-app',
  clientSecret: 's3cr3t: with spaces+plus',
  scopes: ['session:role:ANALYST', 'api://snowflake/.default'],
};

let entra: OAuthFake;
let generic: OAuthFake;
let v1: OAuthFake;
let closed: ClosedPort;
let closedPort: number;
const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;

beforeAll(async () => {
  entra = await startOAuthFake({ clients: [CLIENT] });
  generic = await startOAuthFake({
    clients: [CLIENT],
    style: 'generic',
    path: '/realms/dp/protocol/openid-connect/token',
  });
  v1 = await startOAuthFake({ clients: [CLIENT], path: '/oauth2/token', requireResource: true });
  // Nothing listens there, nor can while it is held.
  closed = await closedLocalPort();
  closedPort = closed.port;
  process.env.OUTBOUND_ALLOW_LIST = [entra.port, generic.port, v1.port, closedPort]
    .map((port) => `127.0.0.1:${port}`)
    .join(',');
});

afterEach(() => entra.behave('normal'));

afterAll(async () => {
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
  await Promise.all([entra?.close(), generic?.close(), v1?.close(), closed?.release()]);
});

function call(overrides: Partial<ClientCredentialsRequest> = {}) {
  return requestClientCredentialsToken({
    tokenUrl: entra.tokenUrl,
    clientId: CLIENT.clientId,
    clientSecret: CLIENT.clientSecret,
    scope: 'session:role:ANALYST',
    timeoutMs: 2_000,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('the client-credentials grant against the fake', () => {
  it('gets a token with the client in HTTP Basic and the scope in the form', async () => {
    const token = await call();
    expect(entra.isIssued(token.accessToken)).toBe(true);
    expect(token.expiresIn).toBe(3599);
    expect(entra.requests.at(-1)).toEqual({
      authentication: 'basic',
      clientId: CLIENT.clientId,
      grantType: 'client_credentials',
      scope: 'session:role:ANALYST',
    });
  });

  it('leaves the scope out when there is none', async () => {
    await call({ scope: '  ' });
    expect(entra.requests.at(-1)?.scope).toBeNull();
  });

  it.each([
    ['an unknown client id (Entra: AADSTS700016)', { clientId: 'someone-else' }, '30-1200', 'unauthorized_client', 400],
    ['a wrong secret (Entra: AADSTS7000215)', { clientSecret: 'wrong' }, '30-1201', 'invalid_client', 401],
    ['a scope the client may not have', { scope: 'session:role:ACCOUNTADMIN' }, '30-1203', 'invalid_scope', 400],
  ])('maps %s', async (_label, overrides, code, providerError, status) => {
    const error = await failure(call(overrides));
    expect(error.code).toBe(code);
    expect(error.extraDetails).toEqual({ provider_error: providerError, provider_status: status });
    // The description names the client; it never reaches the caller.
    expect(JSON.stringify(error.extraDetails)).not.toContain('AADSTS');
  });

  it('maps a server that does not say which value was wrong to 30-1202', async () => {
    for (const overrides of [{ clientSecret: 'wrong' }, { clientId: 'someone-else' }]) {
      const error = await failure(call({ tokenUrl: generic.tokenUrl, ...overrides }));
      expect(error.code).toBe('30-1202');
      expect(error.extraDetails).toEqual({ provider_error: 'invalid_client', provider_status: 401 });
    }
  });

  it('maps a request the server finds incomplete to 30-1207', async () => {
    const error = await failure(call({ tokenUrl: v1.tokenUrl }));
    expect(error.code).toBe('30-1207');
    expect(error.extraDetails).toEqual({ provider_error: 'invalid_request', provider_status: 400 });
  });

  it('maps a URL that is no token endpoint, and a port nobody listens on, to 30-1204', async () => {
    const notFound = await failure(call({ tokenUrl: `http://127.0.0.1:${entra.port}/elsewhere` }));
    expect(notFound.code).toBe('30-1204');
    expect(notFound.extraDetails).toEqual({ provider_error: 'not_found', provider_status: 404 });
    const refused = await failure(call({ tokenUrl: `http://127.0.0.1:${closedPort}/token` }));
    expect(refused.code).toBe('30-1204');
    expect(refused.extraDetails).toEqual({ provider_error: 'connection_refused' });
  });

  it('maps a server that never answers to 30-1205 within the timeout', async () => {
    entra.behave('hang');
    const started = Date.now();
    const error = await failure(call({ timeoutMs: 300 }));
    expect(error.code).toBe('30-1205');
    expect(error.status).toBe(500);
    expect(error.extraDetails).toEqual({ provider_error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.each([
    ['a server error', 'server-error', { provider_error: 'server_error', provider_status: 500 }],
    ['an HTML page', 'unavailable', { provider_status: 503 }],
    [
      'a 200 without a token',
      'no-token',
      { provider_status: 200, reason: 'the answer carries no bearer access token' },
    ],
  ] as const)('maps %s to 30-1206', async (_label, behaviour, details) => {
    entra.behave(behaviour);
    const error = await failure(call());
    expect(error.code).toBe('30-1206');
    expect(error.extraDetails).toEqual(details);
  });

  it('refuses a token URL the outbound guard does not allow, before any call', async () => {
    const before = entra.requests.length;
    const error = await failure(call({ tokenUrl: `https://127.0.0.1:${entra.port + 1}/oauth2/v2.0/token` }));
    expect(error.code).toBe('30-1130');
    expect(error.extraDetails).toEqual({ host: '127.0.0.1' });
    expect(entra.requests.length).toBe(before);
  });
});

describe('answers of other servers', () => {
  it.each([
    [
      "Okta's unknown client",
      401,
      { error: 'invalid_client', error_description: "Invalid value for 'client_id' parameter." },
      '30-1200',
    ],
    [
      "Okta's wrong secret",
      401,
      {
        error: 'invalid_client',
        error_description: 'The client secret supplied for a confidential client is invalid.',
      },
      '30-1201',
    ],
    [
      'an expired Entra secret (AADSTS7000222)',
      401,
      { error: 'invalid_client', error_description: 'AADSTS7000222: The provided client secret keys are expired.' },
      '30-1201',
    ],
    ['a bare invalid_client', 401, { error: 'invalid_client' }, '30-1202'],
    [
      'unauthorized_client for the grant',
      400,
      { error: 'unauthorized_client', error_description: 'The client is not authorized to use this grant.' },
      '30-1202',
    ],
    ['unsupported_grant_type', 400, { error: 'unsupported_grant_type' }, '30-1207'],
    ['invalid_grant', 400, { error: 'invalid_grant' }, '30-1207'],
    ['temporarily_unavailable', 503, { error: 'temporarily_unavailable' }, '30-1206'],
    ['a 401 without a body', 401, undefined, '30-1202'],
    ['a 400 without a body', 400, undefined, '30-1207'],
    ['a redirect', 302, undefined, '30-1204'],
    ['a 405', 405, undefined, '30-1204'],
    ['a 502 page', 502, undefined, '30-1206'],
  ])('maps %s', (_label, status, body, code) => {
    expect(oauthTokenError(status, body).code).toBe(code);
  });

  it('shows an error code only when it is short printable text', () => {
    expect(oauthTokenError(400, { error: 'x'.repeat(65) }).extraDetails).toEqual({ provider_status: 400 });
    expect(oauthTokenError(400, { error: 'bad\ncode' }).extraDetails).toEqual({ provider_status: 400 });
  });

  it('maps transport failures by their network code, never by an exception name', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND idp.example'), { code: 'ENOTFOUND' });
    expect(oauthTransportError(dns)).toMatchObject({
      code: '30-1204',
      extraDetails: { provider_error: 'host_not_found' },
    });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(oauthTransportError(reset)).toMatchObject({
      code: '30-1205',
      extraDetails: { provider_error: 'connection_reset' },
    });
    expect(oauthTransportError(new TypeError('x'))).toMatchObject({
      code: '30-1205',
      extraDetails: { provider_error: 'Unknown' },
    });
  });
});
