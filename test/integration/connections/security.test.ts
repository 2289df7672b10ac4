import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { SignJWT } from 'jose';
import { routes } from '../../../functions/routes';
import { ROLES } from '../../../shared/auth/permissions';
import { logger } from '../../../shared/log';
import { unchecked, type ApiClient, type ApiResponse } from '../../support/api-client';
import { connectionCases, type ConnectionCase } from '../../support/connections';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let owner: ApiClient;
let intruder: ApiClient;
let viewer: ApiClient;
const logged: string[] = [];
let restoreWrites: () => void;

beforeAll(async () => {
  // Log everything this file does, and keep every line to scan it for secrets.
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
  env = await startTestTwin({ buckets: ['demo'] });
  owner = await env.clientFor('owner-tenant', ['editor']);
  intruder = await env.clientFor('intruder-tenant', ['admin']);
  viewer = await env.clientFor('owner-tenant', ['viewer']);
});

afterAll(async () => {
  restoreWrites?.();
  logger.setLogLevel('SILENT');
  await env?.close();
});

const connectionRoutes = routes.filter((route) => route.tag === 'connections');
const path = (template: string, id: number) => template.replace('{connection_id}', String(id));

/** A request to each connection route that would succeed for the owner. */
function bodyFor(
  operationId: string,
  connection: { id: number; lock_version: number; type: string; name: string | null },
): unknown {
  switch (operationId) {
    case 'updateConnection':
      return { ...connection, description: 'changed by someone' };
    case 'mergeConnection':
      return {
        id: connection.id,
        lock_version: connection.lock_version,
        type: connection.type,
        description: 'patched by someone',
      };
    case 'testStoredConnection':
      return { type: connection.type };
    case 'browseConnection':
      return { path: 'demo/' };
    case 'updateConnectionTypeMapping':
      return { id: connection.id, lock_version: connection.lock_version, type_mapping: '{"A":"string"}' };
    case 'createConnection':
    case 'testConnection':
      return connectionCases('https://s3.example.com')[0]!.request;
    default:
      return undefined;
  }
}

describe('tenant isolation', () => {
  it('answers 10-404 to another tenant on every connection route with an id, and changes nothing', async () => {
    const dim = connectionCases(env.twin.s3.endpoint, ' iso').find(
      (c) => c.label === 'pricing_dim/oauth_client_credentials',
    )!;
    const created = (await owner.call('createConnection', { body: dim.request })).body;
    const idRoutes = connectionRoutes.filter((route) => route.path.includes('{connection_id}'));
    expect(idRoutes.map((route) => route.operationId).sort()).toEqual(
      [
        'browseConnection',
        'deleteConnection',
        'getConnection',
        'getConnectionTable',
        'listConnectionTables',
        'mergeConnection',
        'testStoredConnection',
        'updateConnection',
        'updateConnectionTypeMapping',
      ].sort(),
    );
    for (const route of idRoutes) {
      const response = await intruder.raw(route.method, path(route.path, created.id), {
        body: bodyFor(route.operationId, created),
        contentType: route.method === 'PATCH' ? 'application/merge-patch+json' : undefined,
      });
      expect(response.status, route.operationId).toBe(404);
      expect(response.problem, route.operationId).toMatchObject({
        code: '10-404',
        detail: `Entity connection with ID ${created.id} not found`,
      });
    }
    expect((await owner.call('getConnection', { params: { connection_id: created.id } })).body).toEqual(created);
    expect((await intruder.call('listConnections')).body.items.some((item) => item.name === created.name)).toBe(false);
  });
});

describe('authentication and permissions on every protected route', () => {
  const protectedRoutes = routes.filter((route) => route.permission !== null);

  async function expect401(token: string | null, reason: string) {
    for (const route of protectedRoutes) {
      const response = await env.anonymous.raw(route.method, path(route.path, 1), {
        token,
        body: bodyFor(route.operationId, { id: 1, lock_version: 0, type: 'object_store', name: 'x' }),
      });
      expect(response.status, `${route.operationId} (${reason})`).toBe(401);
      expect(response.problem).toMatchObject({ code: '10-401', status: 401, extraDetails: { reason } });
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
  }

  it('10-401 without a token', () => expect401(null, 'missing_token'));

  it('10-401 for tokens that are malformed, forged, unsigned or expired', async () => {
    await expect401('not-a-jwt', 'invalid_token');
    const [header, payload] = owner.token!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    // Same claims, our tenant swapped in, signature kept: the signature no longer matches.
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, tid: 'intruder-tenant' })).toString('base64url')}.${owner.token!.split('.')[2]}`;
    await expect401(tampered, 'invalid_token');
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    await expect401(unsigned, 'invalid_token');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    await expect401(foreign, 'invalid_token');
  });

  it('10-401 for a token once it has expired, also after it was accepted', async () => {
    const previous = process.env.TOKEN_TTL_SECONDS;
    // Long enough to be used once on a loaded machine, short enough to wait for.
    process.env.TOKEN_TTL_SECONDS = '3';
    const shortLived = await env.clientFor('owner-tenant', ['editor']);
    process.env.TOKEN_TTL_SECONDS = previous;
    // Accepted while valid (and remembered by the verifier), refused once expired.
    expect((await shortLived.call('listConnections')).status).toBe(200);
    const { exp } = JSON.parse(Buffer.from(shortLived.token!.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
    };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 1100));
    const response = await shortLived.call('listConnections');
    expect(response.status).toBe(401);
    expect(response.problem.extraDetails).toEqual({ reason: 'expired_token' });
  });

  it('10-403 when the role lacks the route’s permission, and not otherwise', async () => {
    const held = new Set<string>(ROLES.viewer);
    for (const route of protectedRoutes) {
      const response = await viewer.raw(route.method, path(route.path, 1), {
        body: bodyFor(route.operationId, { id: 1, lock_version: 0, type: 'object_store', name: 'x' }),
      });
      if (held.has(route.permission!)) {
        expect(response.status, route.operationId).not.toBe(403);
      } else {
        expect(response.status, route.operationId).toBe(403);
        expect(response.problem).toMatchObject({
          code: '10-403',
          extraDetails: { required_permission: route.permission },
        });
      }
    }
  });
});

describe('secrets are write-only', () => {
  const responses: ApiResponse<unknown>[] = [];
  let cases: ConnectionCase[];

  beforeAll(async () => {
    cases = connectionCases(env.twin.s3.endpoint, ' secret');
    const record = (response: ApiResponse<unknown>) => responses.push(response);
    for (const { request } of cases) {
      const created = await owner.call('createConnection', { body: request });
      expect(created.status).toBe(201);
      record(created);
      const id = created.body.id;
      const params = { connection_id: id };
      record(await owner.call('getConnection', { params }));
      // Sent back as read: refused for the types whose update requires auth, which is scanned too.
      record(
        await owner.call('updateConnection', { params, body: unchecked({ ...created.body, description: 'put' }) }),
      );
      record(
        await owner.call('mergeConnection', {
          params,
          body: { id, lock_version: 1, type: request.type, tags: ['patched'], auth: request.auth },
        }),
      );
      record(await owner.call('testStoredConnection', { params, body: { type: request.type } }));
      if (request.type.startsWith('pricing_'))
        record(
          await owner.call('updateConnectionTypeMapping', {
            params,
            body: { id, lock_version: 2, type_mapping: '{"A":"string"}' },
          }),
        );
      if (request.type !== 'pricing_sdk') record(await owner.call('testConnection', { body: request }));
      // Refusals must not echo what was sent either.
      record(await owner.call('createConnection', { body: unchecked({ ...request, name: '', bogus: true }) }));
      record(
        await owner.raw('POST', '/connections', {
          body: JSON.stringify(request).slice(0, -5),
          contentType: 'application/json',
        }),
      );
    }
    record(await owner.call('listConnections'));
  });

  it('never returns a secret, in any response of any route', () => {
    expect(responses.length).toBeGreaterThan(60);
    for (const { secrets, label } of cases) {
      for (const secret of secrets) {
        for (const response of responses) {
          expect(response.text.includes(secret), `${label} secret in a ${response.status} response`).toBe(false);
        }
      }
    }
    for (const response of responses) expect(response.text).not.toMatch(/BEGIN (RSA )?PRIVATE KEY/);
  });

  it('never logs a secret', () => {
    const log = logged.join('');
    expect(log).toContain('"operationId":"createConnection"');
    for (const { secrets } of cases) for (const secret of secrets) expect(log.includes(secret)).toBe(false);
    expect(log).not.toMatch(/BEGIN (RSA )?PRIVATE KEY/);
  });

  it('stores secrets only encrypted', async () => {
    const client = new DynamoDBClient({
      endpoint: env.twin.dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const items = await client.send(new ScanCommand({ TableName: process.env.TABLE_NAME! }));
    client.destroy();
    const stored = JSON.stringify(items.Items);
    // The scan does see the sealed secrets (KMS-wrapped key, IV, tag, ciphertext)...
    expect(stored.match(/"secret":\{"M":\{/g)?.length).toBeGreaterThanOrEqual(cases.length);
    // ...and none of the values in clear.
    for (const { secrets } of cases) for (const secret of secrets) expect(stored.includes(secret)).toBe(false);
    expect(stored).not.toMatch(/BEGIN (RSA )?PRIVATE KEY/);
  });
});
