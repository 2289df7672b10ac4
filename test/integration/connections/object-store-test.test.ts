import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { failingEndpoint, hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import type { ConnectionTestRequest } from '../../../shared/model/connection';
import type { ApiClient, CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { localS3Client } from '../../support/local-s3';

let env: TestTwin;
let api: ApiClient;
let hanging: FakeEndpoint;
let failing: FakeEndpoint;

beforeAll(async () => {
  hanging = await hangingEndpoint();
  failing = await failingEndpoint();
  env = await startTestTwin({
    buckets: ['demo', 'other'],
    allowOutbound: [`127.0.0.1:${hanging.port}`, `127.0.0.1:${failing.port}`],
    environment: { CONNECTOR_TIMEOUT_MS: '300' },
  });
  api = env.admin;
  const s3 = localS3Client(env.twin.s3.endpoint);
  await s3.send(new PutObjectCommand({ Bucket: 'demo', Key: 'sales/2024-01.csv', Body: 'a,b\n1,2\n' }));
  await s3.send(new PutObjectCommand({ Bucket: 'demo', Key: 'sales/archive/2023-12.csv', Body: 'a,b\n3,4\n' }));
  s3.destroy();
});

afterAll(async () => {
  await env?.close();
  await hanging?.close();
  await failing?.close();
});

function objectStore(
  overrides: { endpoint?: string; access_key_id?: string; path_restriction?: string | null } = {},
): Extract<ConnectionTestRequest, { type: 'object_store' }> {
  return {
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: overrides.access_key_id ?? LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint: overrides.endpoint ?? env.twin.s3.endpoint,
    },
    ...(overrides.path_restriction === null ? {} : { path_restriction: overrides.path_restriction ?? 'demo/sales/' }),
  };
}

async function expectProblem(body: ConnectionTestRequest, status: number, code: string) {
  const response = await api.call('testConnection', { body });
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.problem).toMatchObject({
    status,
    code,
    instance: '/api/data/v1/connections/test',
    type: `/api/data/v1/errors/${code}`,
  });
  return response.problem;
}

const testStored = (id: number, body: CallOptions<'testStoredConnection'>['body']) =>
  api.call('testStoredConnection', { params: { connection_id: id }, body });

describe('testing an unsaved object-store configuration against S3', () => {
  it('lists the restricted folder and answers with the configuration, secret omitted', async () => {
    const response = await api.call('testConnection', { body: objectStore() });
    expect(response.status).toBe(200);
    // Compared on the wire: the response schema would strip a field it does not name.
    expect(response.json).toEqual({
      type: 'object_store',
      read: true,
      write: false,
      auth: { auth_type: 'secret_key', access_key_id: 'S3RVER', endpoint: env.twin.s3.endpoint },
      path_restriction: 'demo/sales/',
    });
  });

  it('lists the buckets when there is no path restriction', async () => {
    expect((await api.call('testConnection', { body: objectStore({ path_restriction: null }) })).status).toBe(200);
  });

  it('30-1108 when the bucket does not exist', async () => {
    const problem = await expectProblem(objectStore({ path_restriction: 'no-such-bucket/x/' }), 400, '30-1108');
    expect(problem.detail).toBe('Bucket no-such-bucket does not exist');
  });

  it('30-1115 for an invalid bucket name', async () => {
    const problem = await expectProblem(objectStore({ path_restriction: 'Bad_Bucket/x/' }), 400, '30-1115');
    expect(problem.detail).toContain('Bad_Bucket');
  });

  it('30-1113 for a malformed path', async () => {
    for (const path of ['demo/a//b', 'demo/../etc', 'demo/a\\b']) {
      await expectProblem(objectStore({ path_restriction: path }), 400, '30-1113');
    }
  });

  it('30-1114 for a folder that does not exist', async () => {
    const problem = await expectProblem(objectStore({ path_restriction: 'demo/nothing-here/' }), 400, '30-1114');
    expect(problem.detail).toBe('Path demo/nothing-here/ does not exist');
  });

  it('30-1116 for an access key the store does not know', async () => {
    await expectProblem(objectStore({ access_key_id: 'NOT-A-KEY' }), 400, '30-1116');
  });

  it('30-1110 when the store does not answer in time', async () => {
    const started = Date.now();
    await expectProblem(objectStore({ endpoint: hanging.endpoint }), 408, '30-1110');
    expect(hanging.hits()).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('30-1100 with the provider code when the store fails', async () => {
    const problem = await expectProblem(objectStore({ endpoint: failing.endpoint }), 400, '30-1100');
    expect(problem.extraDetails).toEqual({ provider_error: 'InternalError', provider_status: 500 });
    expect(failing.hits()).toBeGreaterThan(0);
  });

  it('10-1008 for an endpoint that is not a usable URL, naming the field', async () => {
    for (const endpoint of [
      'not a url',
      'ftp://s3.example.com',
      'http://s3.example.com',
      'https://user:pw@s3.example.com',
      'https://s3.example.com/#x',
    ]) {
      const problem = await expectProblem(objectStore({ endpoint }), 400, '10-1008');
      expect(Object.keys(problem.extraDetails ?? {})).toEqual(['auth.endpoint']);
    }
  });

  it('30-1130 for loopback, private, link-local and metadata destinations', async () => {
    for (const endpoint of [
      'https://169.254.169.254',
      'https://10.1.2.3',
      'https://192.168.0.10:9000',
      'https://[::1]:9000',
      'https://localhost:9443',
      'https://127.0.0.1:1',
      'https://2130706433',
    ]) {
      await expectProblem(objectStore({ endpoint }), 400, '30-1130');
    }
  });

  it('30-1111 for an AWS endpoint without a valid region', async () => {
    await expectProblem(objectStore({ endpoint: 'https://s3.moon-1.amazonaws.com' }), 400, '30-1111');
  });
});

describe('testing a stored object-store connection', () => {
  let id: number;

  beforeAll(async () => {
    const created = await api.call('createConnection', { body: { name: 'stored store', ...objectStore() } });
    expect(created.status).toBe(201);
    id = created.body.id;
  });

  it('decrypts the stored secret, lists the folder and answers with the connection', async () => {
    const response = await testStored(id, { type: 'object_store' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, name: 'stored store', path_restriction: 'demo/sales/' });
  });

  it('accepts a narrower path restriction for the test', async () => {
    expect((await testStored(id, { type: 'object_store', path_restriction: 'demo/sales/archive/' })).status).toBe(200);
    const missing = await testStored(id, { type: 'object_store', path_restriction: 'demo/sales/none/' });
    expect(missing.problem.code).toBe('30-1114');
  });

  it('30-1106 for an override outside the stored restriction', async () => {
    for (const path_restriction of ['demo/', 'other/sales/', 'demo/salesman/']) {
      const response = await testStored(id, { type: 'object_store', path_restriction });
      expect(response.status).toBe(400);
      expect(response.problem.code).toBe('30-1106');
      expect(response.problem.detail).toContain('demo/sales/');
    }
  });

  it('10-1400 when the type does not match the stored connection', async () => {
    const response = await testStored(id, { type: 'warehouse' });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { type: 'must be object_store, the type of connection ' + id },
    });
  });

  it('10-404 for a connection that does not exist', async () => {
    expect((await testStored(999999, { type: 'object_store' })).problem.code).toBe('10-404');
  });
});
