import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { createCredentials, type IssuedCredentials } from '../../../shared/identity/clients';
import { unchecked, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let credentials: IssuedCredentials;

beforeAll(async () => {
  env = await startTestTwin();
  credentials = await createCredentials({ tenantId: 'acme', roleNames: ['viewer'], description: 'reporting job' });
});
afterAll(() => env?.close());

/** A token request, sent as a form unless `contentType` says otherwise. */
const token = (body: CallOptions<'issueToken'>['body'], headers: Record<string, string> = {}, contentType?: string) =>
  env.anonymous.call('issueToken', { body, headers, contentType });

describe('POST /oauth/token', () => {
  it('exchanges client credentials (form body) for a short-lived ES256 token carrying tenant and permissions', async () => {
    const response = await token({
      grant_type: 'client_credentials',
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900 });
    expect(decodeProtectedHeader(response.body.access_token)).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    const claims = decodeJwt(response.body.access_token);
    expect(claims).toMatchObject({
      sub: credentials.client_id,
      tid: 'acme',
      roles: ['viewer'],
      perms: ['connection:read', 'data:read'],
      name: 'reporting job',
    });
    expect(claims.exp! - claims.iat!).toBe(900);
    // It works: the viewer may list, in its own tenant.
    const listed = await env.anonymous.call('listConnections', { token: response.body.access_token });
    expect(listed.status).toBe(200);
  });

  it('accepts JSON bodies and HTTP Basic client authentication', async () => {
    const json = await token(
      { grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret },
      {},
      'application/json',
    );
    expect(json.status).toBe(200);
    const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64');
    const viaHeader = await token({ grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(viaHeader.status).toBe(200);
    expect(decodeJwt(viaHeader.body.access_token).sub).toBe(credentials.client_id);
  });

  it('10-401 for a wrong secret, an unknown or malformed client id, without saying which', async () => {
    for (const [client_id, client_secret] of [
      [credentials.client_id, 'dps_wrong'],
      ['acme.00000000000000000000000000000000', credentials.client_secret],
      ['no-tenant-here', credentials.client_secret],
    ]) {
      const response = await token({
        grant_type: 'client_credentials',
        client_id: client_id!,
        client_secret: client_secret!,
      });
      expect(response.status).toBe(401);
      expect(response.problem).toMatchObject({ code: '10-401', extraDetails: { reason: 'invalid_client' } });
      expect(response.text).not.toContain(credentials.client_secret);
    }
  });

  it('10-401 for an expired client', async () => {
    const expired = await createCredentials({
      tenantId: 'acme',
      roleNames: ['editor'],
      expiresAt: new Date(Date.now() - 1000),
    });
    const response = await token({
      grant_type: 'client_credentials',
      client_id: expired.client_id,
      client_secret: expired.client_secret,
    });
    expect(response.status).toBe(401);
  });

  it('10-1400 for a missing or unsupported grant and missing credentials', async () => {
    expect(
      (await token(unchecked({ grant_type: 'password', client_id: 'a', client_secret: 'b' }))).problem,
    ).toMatchObject({
      code: '10-1400',
      extraDetails: { grant_type: 'must be "client_credentials"' },
    });
    expect((await token(unchecked({ client_id: 'a', client_secret: 'b' }))).problem.extraDetails).toEqual({
      grant_type: 'is required; must be "client_credentials"',
    });
    expect((await token({ grant_type: 'client_credentials' })).problem.extraDetails).toEqual({
      client_id: 'is required (form field or HTTP Basic)',
      client_secret: 'is required (form field or HTTP Basic)',
    });
  });

  it('is public: it needs no bearer token', async () => {
    const response = await token(
      { grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret },
      { authorization: 'Bearer garbage' },
    );
    // A bearer header is not client authentication; the form credentials still count.
    expect(response.status).toBe(200);
  });
});
