/**
 * Tenant tokens over HTTP: a tenant's admin makes API clients with roles, each exchanged at
 * POST /oauth/token like any client; deleting one (or its expiry) stops its access tokens
 * within the authorizer's revocation bound. Every line the service logs is kept and scanned
 * for the secrets this file saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_CHECK_SECONDS } from '../../../shared/identity/revocation';
import { roleStore } from '../../../shared/identity/store-provider';
import { createCredentials } from '../../../shared/identity/clients';
import { logger } from '../../../shared/log';
import { ApiClient, type ApiResponse } from '../../support/api-client';
import { exchangeToken, startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
/** Admin of tenant "acme", another tenant than the twin's admin ("local"). */
let acmeAdmin: ApiClient;
const logged: string[] = [];
/** Every secret a create answered with: none may appear anywhere else. */
const secrets: string[] = [];
let restoreWrites: () => void;

beforeAll(async () => {
  logger.setLogLevel('DEBUG');
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const capture = (chunk: unknown) => {
    logged.push(String(chunk));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  restoreWrites = () => {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  };
  env = await startTestTwin();
  acmeAdmin = await env.clientFor('acme', ['admin']);
});

afterAll(async () => {
  restoreWrites?.();
  logger.setLogLevel('SILENT');
  await env?.close();
});

/** A token made by `creator`, its secret kept for the final scan. */
async function createToken(
  creator: ApiClient,
  body: { description: string; role_names: string[]; expiration: string },
  headers: Record<string, string> = {},
) {
  const response = await creator.call('createToken', { body, headers });
  if (response.status === 201 && response.body.secret !== undefined) secrets.push(response.body.secret);
  return response;
}

/** A client holding an access token obtained with the secret, as a caller would. */
async function signedIn(tenantId: string, clientId: string, secret: string): Promise<ApiClient> {
  return new ApiClient(env.twin.apiUrl, await exchangeToken(env.twin.apiUrl, clientId, secret), tenantId);
}

const exchange = (client_id: string, client_secret: string) =>
  env.anonymous.call('issueToken', { body: { grant_type: 'client_credentials', client_id, client_secret } });

/** Calls until the answer is a 401 or the time is up; how long it took. */
async function until401(call: () => Promise<ApiResponse<unknown>>, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const response = await call();
    if (response.status === 401) {
      expect(response.problem).toMatchObject({ code: '10-401', extraDetails: { reason: 'revoked_token' } });
      return Date.now() - started;
    }
    expect(response.status).toBe(200);
    if (Date.now() - started > withinMs) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The revocation bound, and slack for a loaded machine's request latency. */
const REVOKED_WITHIN_MS = REVOCATION_CHECK_SECONDS * 1000 + 2000;

describe('a tenant token from creation to deletion', () => {
  it('is created with its secret once, exchanged, used, listed without it, and deleted: its access token then stops', async () => {
    const before = Date.now();
    const created = await createToken(env.admin, {
      description: 'nightly import',
      role_names: ['editor'],
      expiration: 'P30D',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { client_id, secret } = created.body;
    expect(created.body).toMatchObject({ description: 'nightly import', role_ids: ['builtin.editor'] });
    expect(client_id).toMatch(/^local\.[0-9a-f]{32}$/);
    expect(secret).toMatch(/^dps_/);
    const expiresIn = Date.parse(created.body.expires_at!) - before;
    expect(Math.abs(expiresIn - 30 * 24 * 3600 * 1000)).toBeLessThan(60_000);

    const token = await signedIn('local', client_id, secret!);
    expect((await token.call('listConnections')).status).toBe(200);

    const shown = await env.admin.call('getToken', { params: { client_id } });
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual({
      client_id,
      description: 'nightly import',
      created_at: created.body.created_at,
      expires_at: created.body.expires_at,
      role_ids: ['builtin.editor'],
    });
    const listed = await env.admin.call('listTokens', { query: { filter: `client_id eq '${client_id}'` } });
    expect(listed.body).toMatchObject({ total: 1, items: [{ client_id }] });
    for (const answer of [shown.text, listed.text]) expect(answer).not.toContain(secret);

    expect((await env.admin.call('deleteToken', { params: { client_id } })).status).toBe(204);
    expect((await exchange(client_id, secret!)).status).toBe(401);
    const took = await until401(() => token.call('listConnections'), REVOKED_WITHIN_MS);
    expect(took).toBeLessThanOrEqual(REVOKED_WITHIN_MS);
    expect((await env.admin.call('getToken', { params: { client_id } })).problem.code).toBe('10-404');
    expect((await env.admin.call('deleteToken', { params: { client_id } })).problem.code).toBe('10-404');
  });

  it('expires: neither the secret nor an access token issued before works after its expiration', async () => {
    const created = await createToken(env.admin, { description: 'brief', role_names: ['viewer'], expiration: 'PT3S' });
    const token = await signedIn('local', created.body.client_id, created.body.secret!);
    expect((await token.call('listConnections')).status).toBe(200);
    const took = await until401(() => token.call('listConnections'), 3000 + REVOKED_WITHIN_MS);
    expect(took).toBeLessThanOrEqual(3000 + REVOKED_WITHIN_MS);
    expect((await exchange(created.body.client_id, created.body.secret!)).status).toBe(401);
  });

  it('takes an ISO 8601 date-time too, and refuses past, impossible or unreadable expirations with 10-1400', async () => {
    const at = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const created = await createToken(env.admin, { description: 'dated', role_names: ['viewer'], expiration: at });
    expect(created.body.expires_at).toBe(at);
    for (const expiration of [
      '2020-01-01T00:00:00Z',
      '2027-02-30T00:00:00Z',
      '2027-01-01',
      'tomorrow',
      'P',
      'PT',
      'P20Y',
      '-P1D',
    ]) {
      const refused = await createToken(env.admin, { description: 'x', role_names: ['viewer'], expiration });
      expect(refused.status, expiration).toBe(400);
      expect(refused.problem.code).toBe('10-1400');
      expect(Object.keys(refused.problem.extraDetails ?? {}), expiration).toEqual(['expiration']);
    }
  });
});

describe('what a token may do', () => {
  it('carries only its roles: a viewer token reads but cannot write or manage tokens (403)', async () => {
    const created = await createToken(env.admin, { description: 'reader', role_names: ['viewer'], expiration: 'P1D' });
    const viewer = await signedIn('local', created.body.client_id, created.body.secret!);
    expect((await viewer.call('listConnections')).status).toBe(200);
    const write = await viewer.call('createDataSource', {
      body: { name: 'x', type: 'bucket', connection_id: 1, path: 'demo/' },
    });
    expect(write.status).toBe(403);
    expect(write.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
    for (const refused of [await viewer.call('listTokens'), await viewer.call('listRoles')]) {
      expect(refused.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'token:manage' } });
    }
  });

  it('never carries a permission its creator lacks (10-403 naming them)', async () => {
    // A role that may manage tokens and nothing else: its holder may hand out no more than that.
    await roleStore.put('clerks', {
      role_id: 'clerk-1',
      name: 'token-clerk',
      permissions: ['token:manage'],
      built_in: false,
    });
    const clerkCredentials = await createCredentials({ tenantId: 'clerks', roleNames: ['token-clerk'] });
    const clerk = await signedIn('clerks', clerkCredentials.client_id, clerkCredentials.client_secret);
    const refused = await createToken(clerk, { description: 'x', role_names: ['viewer'], expiration: 'P1D' });
    expect(refused.status).toBe(403);
    expect(refused.problem).toMatchObject({
      code: '10-403',
      extraDetails: { missing_permissions: ['connection:read', 'data:read'] },
    });
    const allowed = await createToken(clerk, { description: 'x', role_names: ['token-clerk'], expiration: 'P1D' });
    expect(allowed.status).toBe(201);
    expect(allowed.body.role_ids).toEqual(['clerk-1']);
  });
});

describe('roles', () => {
  it('GET /roles lists the built-in roles with their permissions', async () => {
    const roles = await env.admin.call('listRoles');
    expect(roles.status).toBe(200);
    expect(roles.body.items).toEqual(
      expect.arrayContaining([
        { role_id: 'builtin.viewer', name: 'viewer', permissions: ['connection:read', 'data:read'], built_in: true },
        expect.objectContaining({ name: 'admin', permissions: expect.arrayContaining(['token:manage']) }),
      ]),
    );
    const filtered = await env.admin.call('listRoles', { query: { filter: "permissions co 'schema:analyze'" } });
    expect(filtered.body.items.map((role) => role.name).sort()).toEqual(['admin', 'schema-analyst', 'system-admin']);
  });

  it('30-7001 for a role name no role has', async () => {
    const refused = await createToken(env.admin, {
      description: 'x',
      role_names: ['viewer', 'root'],
      expiration: 'P1D',
    });
    expect(refused.status).toBe(400);
    expect(refused.problem).toMatchObject({ code: '30-7001', detail: 'Role root not found' });
  });

  it('30-7002 for a role name two roles have; GET /roles shows both', async () => {
    const admin = await env.clientFor('twins', ['admin']);
    for (const role_id of ['auditor-a', 'auditor-b']) {
      await roleStore.put('twins', { role_id, name: 'auditor', permissions: ['data:read'], built_in: false });
    }
    const refused = await createToken(admin, { description: 'x', role_names: ['auditor'], expiration: 'P1D' });
    expect(refused.status).toBe(400);
    expect(refused.problem).toMatchObject({ code: '30-7002', detail: 'Several roles found with name auditor' });
    const listed = await admin.call('listRoles', { query: { filter: "name eq 'auditor'" } });
    expect(listed.body.items.map((role) => role.role_id).sort()).toEqual(['auditor-a', 'auditor-b']);
  });
});

describe('idempotency and tenants', () => {
  it('20 parallel creates with one Idempotency-Key make one token; only one answer holds the secret', async () => {
    const body = { description: 'retried', role_names: ['viewer'], expiration: 'P2D' };
    const headers = { 'idempotency-key': 'tokens-parallel-1' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => createToken(env.admin, body, headers)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.body.client_id)).size).toBe(1);
    expect(answers.filter((answer) => answer.body.secret !== undefined)).toHaveLength(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const listed = await env.admin.call('listTokens', { query: { filter: "description eq 'retried'" } });
    expect(listed.body.total).toBe(1);
    const reused = await createToken(env.admin, { ...body, description: 'other' }, headers);
    expect(reused.problem).toMatchObject({ code: '10-1400', extraDetails: { 'Idempotency-Key': expect.any(String) } });
  });

  it("a tenant's admin cannot see, list or delete another tenant's tokens (404)", async () => {
    const created = await createToken(env.admin, {
      description: 'local only',
      role_names: ['viewer'],
      expiration: 'P1D',
    });
    const { client_id } = created.body;
    expect((await acmeAdmin.call('getToken', { params: { client_id } })).problem.code).toBe('10-404');
    expect((await acmeAdmin.call('deleteToken', { params: { client_id } })).problem.code).toBe('10-404');
    const acmeList = await acmeAdmin.call('listTokens');
    expect(acmeList.body.items.map((token) => token.client_id)).not.toContain(client_id);
    expect(acmeList.body.items.every((token) => token.client_id.startsWith('acme.'))).toBe(true);
    expect((await env.admin.call('getToken', { params: { client_id } })).status).toBe(200);
  });

  it('refuses a malformed client id with 10-1400 naming it', async () => {
    const refused = await env.admin.call('getToken', { params: { client_id: 'not-a-client' } });
    expect(refused.problem).toMatchObject({ code: '10-1400', extraDetails: { client_id: expect.any(String) } });
  });
});

describe('secrets', () => {
  it('no secret this file created appears in any answer after its creation or in any log line', () => {
    expect(secrets.length).toBeGreaterThan(5);
    const log = logged.join('');
    expect(log).toContain('createToken'); // the capture saw the service's request lines
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
