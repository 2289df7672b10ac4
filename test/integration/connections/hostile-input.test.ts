import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { EXCERPT_LENGTH } from '../../../shared/errors/app-error';
import { unchecked, type ApiClient, type ApiResponse } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

/**
 * Hostile text in the fields that reach other systems: credentials and continuation tokens
 * with NUL, control characters, non-ASCII text or lone surrogates are refused as 10-1400
 * naming the field before any client library sees them; no answer names an exception class,
 * a stack frame or a source path; a submitted value comes back in a message only as a short,
 * escaped excerpt; and every spelling of a loopback address is refused as an endpoint.
 */
let env: TestTwin;
let api: ApiClient;
let connectionId: number;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['demo'] });
  api = env.admin;
  const created = await api.call('createConnection', { body: objectStore('hostile input target') });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
});

afterAll(async () => {
  await env?.close();
});

interface ObjectStoreOverrides {
  readonly access_key_id?: string;
  readonly secret_access_key?: string;
  readonly endpoint?: string;
  readonly path_restriction?: string;
}

function objectStore(name: string, overrides: ObjectStoreOverrides = {}) {
  return {
    name,
    type: 'object_store' as const,
    auth: {
      auth_type: 'secret_key' as const,
      access_key_id: overrides.access_key_id ?? LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: overrides.secret_access_key ?? LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint: overrides.endpoint ?? env.twin.s3.endpoint,
    },
    ...(overrides.path_restriction === undefined ? {} : { path_restriction: overrides.path_restriction }),
  };
}

/** Text no credential or token contains, each inside otherwise valid characters. */
const HOSTILE: readonly (readonly [label: string, value: string])[] = [
  ['NUL', 'AKIA\u0000EXAMPLE0001'],
  ['a control character', 'AKIA\u0007EXAMPLE0001'],
  ['a line break', 'AKIAEXAMPLE\r\nX-Injected: 1'],
  ['non-ASCII text', 'AKIAÉXAMPLE数据0001'],
  ['a lone high surrogate', 'AKIAEXAMPLE\ud800'],
  ['a lone low surrogate', '\udc00AKIAEXAMPLE'],
];

/** What no answer may contain: JavaScript exception classes, stack frames, source paths. */
const INTERNAL =
  /TypeError|RangeError|URIError|SyntaxError|ReferenceError|\bat [\w.<>]+ \(|node_modules|\/work\/|file:\/\/|\.[cm]?[jt]s:\d+/;

function expectNoInternals(response: ApiResponse<unknown>): void {
  expect(response.text).not.toMatch(INTERNAL);
}

function expectFieldRefused(response: ApiResponse<unknown>, field: string): void {
  expectNoInternals(response);
  expect(response.status).toBe(400);
  expect(response.problem.code).toBe('10-1400');
  expect(Object.keys(response.problem.extraDetails ?? {})).toContain(field);
}

describe('credentials with characters no credential has', () => {
  it.each(HOSTILE)(
    'refuses an access key id with %s on create, test, update and merge (10-1400 auth.access_key_id)',
    async (_label, value) => {
      const body = objectStore('hostile key', { access_key_id: value });
      expectFieldRefused(await api.call('createConnection', { body: unchecked(body) }), 'auth.access_key_id');
      expectFieldRefused(await api.call('testConnection', { body: unchecked(body) }), 'auth.access_key_id');
      const current = (await api.call('getConnection', { params: { connection_id: connectionId } })).body;
      expectFieldRefused(
        await api.call('updateConnection', {
          params: { connection_id: connectionId },
          body: unchecked({ ...current, auth: { ...current.auth, access_key_id: value } }),
        }),
        'auth.access_key_id',
      );
      expectFieldRefused(
        await api.call('mergeConnection', {
          params: { connection_id: connectionId },
          body: unchecked({
            id: connectionId,
            lock_version: current.lock_version,
            type: 'object_store',
            auth: { access_key_id: value },
          }),
        }),
        'auth.access_key_id',
      );
    },
  );

  it.each(HOSTILE)('refuses a secret access key with %s (10-1400 auth.secret_access_key)', async (_label, value) => {
    const body = objectStore('hostile secret', { secret_access_key: value });
    expectFieldRefused(await api.call('createConnection', { body: unchecked(body) }), 'auth.secret_access_key');
    expectFieldRefused(await api.call('testConnection', { body: unchecked(body) }), 'auth.secret_access_key');
  });

  it('refuses access key ids outside the documented shape, and names the rule, never the value', async () => {
    for (const value of ['AK', 'A'.repeat(129), 'AKIA EXAMPLE', 'AKIA/EXAMPLE']) {
      const response = await api.call('createConnection', {
        body: unchecked(objectStore('bad key shape', { access_key_id: value })),
      });
      expectFieldRefused(response, 'auth.access_key_id');
      expect(response.text).not.toContain(value);
    }
  });

  it('refuses OAuth client secrets and warehouse passwords with control characters or lone surrogates', async () => {
    const oauth = {
      name: 'hostile oauth',
      type: 'pricing_dim',
      auth: {
        auth_type: 'oauth_client_credentials',
        token_url: 'https://idp.example.com/token',
        client_id: 'dim',
        client_secret: 's\u0000',
        scope: 'pricing',
        host: 'https://pricing.example.com',
      },
    };
    expectFieldRefused(await api.call('createConnection', { body: unchecked(oauth) }), 'auth.client_secret');
    const warehouse = {
      name: 'hostile password',
      type: 'warehouse',
      auth: {
        auth_type: 'password',
        username: 'loader',
        password: 'pässwörd\ud83d',
        host: 'xy12345.eu-west-1.snowflakecomputing.com',
      },
    };
    expectFieldRefused(await api.call('createConnection', { body: unchecked(warehouse) }), 'auth.password');
  });

  it('still accepts a Unicode password and the S3-compatible key shapes', async () => {
    const warehouse = await api.call('createConnection', {
      body: {
        name: 'unicode password',
        type: 'warehouse',
        auth: {
          auth_type: 'password',
          username: 'lädare',
          password: 'pässwörd 数据 😀',
          host: 'xy12345.eu-west-1.snowflakecomputing.com',
        },
      },
    });
    expect(warehouse.status).toBe(201);
    for (const [name, key] of [
      ['aws key', 'AKIAIOSFODNN7EXAMPLE'],
      ['r2 key', 'e1a2b3c4d5e6f708192a3b4c5d6e7f80'],
    ] as const) {
      expect((await api.call('createConnection', { body: objectStore(name, { access_key_id: key }) })).status).toBe(
        201,
      );
    }
  });
});

describe('browsing with hostile continuation tokens and paths', () => {
  it.each<readonly [string, string]>([...HOSTILE, ['a space', 'token with space']])(
    'refuses a continuation token with %s (10-1400 continuation_token)',
    async (_label, value) => {
      const response = await api.call('browseConnection', {
        params: { connection_id: connectionId },
        body: unchecked({ path: 'demo/', continuation_token: value }),
      });
      expectFieldRefused(response, 'continuation_token');
    },
  );

  it('refuses a path with NUL, a control character or a lone surrogate (10-1400 path)', async () => {
    for (const path of ['demo/a\u0000b/', 'demo/\u001b[2J/', 'demo/\ud800/']) {
      expectFieldRefused(
        await api.call('browseConnection', { params: { connection_id: connectionId }, body: unchecked({ path }) }),
        'path',
      );
    }
  });
});

describe('submitted values in messages', () => {
  const injection = `x'; DROP TABLE users; --\u202e${'A'.repeat(900)}`;
  const excerpt = `x'; DROP TABLE users; --\\u202e${'A'.repeat(EXCERPT_LENGTH - 25)}…`;

  it('quotes a long invalid bucket name only as a short escaped excerpt (browse, 30-1115)', async () => {
    const response = await api.call('browseConnection', {
      params: { connection_id: connectionId },
      body: unchecked({ path: `${injection}/folder/` }),
    });
    expectNoInternals(response);
    expect(response.status).toBe(400);
    expect(response.problem.code).toBe('30-1115');
    expect(response.problem.detail).toBe(`Bucket name ${excerpt} is invalid`);
    expect(response.text).not.toContain('A'.repeat(EXCERPT_LENGTH));
    expect(response.text).not.toContain('\u202e');
  });

  it('quotes a long invalid path restriction only as an excerpt (create, 30-1115)', async () => {
    const response = await api.call('createConnection', {
      body: unchecked(objectStore('injected restriction', { path_restriction: injection })),
    });
    expectNoInternals(response);
    expect(response.status).toBe(400);
    expect(response.problem.code).toBe('30-1115');
    expect(response.problem.detail).toBe(`Bucket name ${excerpt} is invalid`);
  });
});

describe('endpoints that reach a loopback address however it is written', () => {
  const spellings = [
    'https://[::127.0.0.1]',
    'https://[::ffff:0:127.0.0.1]',
    'https://[::FFFF:7F00:1]:9000/',
    'https://[64:ff9b::7f00:1]',
    'https://[2002:7f00:1::]',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    'https://2130706433',
    'https://0177.0.0.1',
    'https://0x7f.1',
    'https://127.1',
    'https://0xa9.0376.43518/latest/meta-data',
  ];

  it.each(spellings)('refuses %s on create, test and update (30-1130) and stores nothing', async (endpoint) => {
    const body = objectStore(`ssrf ${endpoint}`, { endpoint });
    for (const response of [await api.call('createConnection', { body }), await api.call('testConnection', { body })]) {
      expectNoInternals(response);
      expect(response.status).toBe(400);
      expect(response.problem.code).toBe('30-1130');
    }
    const current = (await api.call('getConnection', { params: { connection_id: connectionId } })).body;
    const update = await api.call('updateConnection', {
      params: { connection_id: connectionId },
      body: unchecked({ ...current, auth: { ...current.auth, endpoint } }),
    });
    expect(update.problem.code).toBe('30-1130');
    const listed = await api.call('listConnections', { query: { limit: 100 } });
    expect(listed.body.items.map((connection) => connection.name)).not.toContain(`ssrf ${endpoint}`);
  });

  it('keeps 10-1008 for an endpoint that is not a URL', async () => {
    const response = await api.call('createConnection', {
      body: objectStore('broken url', { endpoint: 'https://[::127.0.0.1' }),
    });
    expect(response.status).toBe(400);
    expect(response.problem.code).toBe('10-1008');
  });
});
