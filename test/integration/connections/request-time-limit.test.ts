/**
 * A request whose time limit runs out while it waits on the external system the caller named
 * answers that system's time-out code (a 4xx), not 10-500, and the twin goes on answering.
 * The route's limit is made shorter than one connector call (CONNECTOR_TIMEOUT_MS), so it is
 * the route's limit that fires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import { startTestTwin, type TestTwin } from '../../support/harness';

const TIME_LIMIT_MS = 1500;

let env: TestTwin;
let hanging: FakeEndpoint;

beforeAll(async () => {
  hanging = await hangingEndpoint();
  env = await startTestTwin({
    buckets: ['demo'],
    allowOutbound: [`127.0.0.1:${hanging.port}`],
    environment: { CONNECTOR_TIMEOUT_MS: '20000' },
    requestTimeLimitMs: TIME_LIMIT_MS,
  });
});

afterAll(async () => {
  await env?.close();
  await hanging?.close();
});

const objectStoreAt = (endpoint: string) =>
  ({
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint,
    },
    path_restriction: 'demo/',
  }) as const;

describe("a request's time limit while it waits on an external system", () => {
  it('answers 408 30-1110 when the object store the caller named does not answer, at the time limit', async () => {
    const started = performance.now();
    const response = await env.admin.call('testConnection', { body: objectStoreAt(hanging.endpoint) });
    const tookMs = performance.now() - started;
    expect(response.status).toBe(408);
    expect(response.problem).toMatchObject({ code: '30-1110', status: 408 });
    expect(hanging.hits()).toBeGreaterThan(0);
    expect(tookMs).toBeGreaterThanOrEqual(TIME_LIMIT_MS - 100);
    expect(tookMs).toBeLessThan(TIME_LIMIT_MS + 3000);
  });

  it('answers the same for a stored connection, and other requests are answered meanwhile and after', async () => {
    const created = await env.admin.call('createConnection', {
      body: { name: 'slow store', ...objectStoreAt(hanging.endpoint) },
    });
    expect(created.status).toBe(201);
    const id = (created.json as { id: number }).id;
    const slow = env.admin.call('testStoredConnection', {
      params: { connection_id: id },
      body: { type: 'object_store' },
    });
    // The local S3 answers within the limit while the other request waits on its store.
    const fast = await env.admin.call('testConnection', { body: objectStoreAt(env.twin.s3.endpoint) });
    expect(fast.status).toBe(200);
    const answer = await slow;
    expect(answer.status).toBe(408);
    expect(answer.problem.code).toBe('30-1110');
    expect((await env.admin.call('getConnection', { params: { connection_id: id } })).status).toBe(200);
  });
});
