import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionCases } from '../../support/connections';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['demo'] });
  api = env.admin;
});
afterAll(() => env?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('creating connections of every type and auth variant', () => {
  it('stores each one and answers per spec 2.3/2.4, secrets omitted', async () => {
    const cases = connectionCases(env.twin.s3.endpoint, ' crud');
    expect(new Set(cases.map((c) => c.request.type)).size).toBe(7);
    for (const { label, request } of cases) {
      const created = await api.call('createConnection', { body: request });
      expect(created.status, label).toBe(201);
      const body = created.body;
      expect(created.headers.get('location')).toBe(`/api/data/v1/connections/${body.id}`);
      expect(body).toMatchObject({
        type: request.type,
        name: request.name,
        lock_version: 0,
        read: true,
        write: request.type === 'pricing_dim',
        description: null,
        tags: null,
        created_by: { id: expect.stringMatching(/^local\./) },
        last_modified_by: { id: body.created_by.id },
      });
      expect(body.id).toBeGreaterThan(0);
      expect(body.created_date).toMatch(ISO);

      const secretField = {
        secret_key: 'secret_access_key',
        password: 'password',
        oauth_client_credentials: 'client_secret',
        workload_identity: 'client_secret',
        service_account_key: 'service_account_key_json',
        delta_sharing_profile: 'delta_sharing_profile_content',
        private_key_jwt: 'private_key',
      }[request.auth.auth_type];
      const { [secretField]: _secret, ...visibleAuth } = request.auth;
      // Compared on the wire: the response schema would strip a field it does not name.
      if (request.auth.auth_type === 'delta_sharing_profile') {
        expect(created.json).toHaveProperty('auth', {
          ...visibleAuth,
          delta_sharing_profile_content_redacted: expect.any(String),
        });
        const redacted: unknown = JSON.parse(String(body.auth.delta_sharing_profile_content_redacted));
        expect(redacted).toEqual({
          shareCredentialsVersion: 1,
          endpoint: 'https://sharing.example.com/delta-sharing/',
          bearerToken: '********',
          expirationTime: '2030-01-01T00:00:00Z',
        });
      } else {
        expect(created.json, label).toHaveProperty('auth', visibleAuth);
      }
      const settingFields = ['path_restriction', 'database', 'schema', 'warehouse', 'dataset_id', 'service_key'];
      const settings = Object.fromEntries(Object.entries(request).filter(([field]) => settingFields.includes(field)));
      expect(body, label).toMatchObject(settings);
      if (request.type.startsWith('pricing_'))
        expect(body).toMatchObject({ type_mapping: null, type_mapping_name: null });

      const read = await api.call('getConnection', { params: { connection_id: body.id } });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(body);
    }
  });

  it('honours read and write when given, and keeps pricing_dim connections writable', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' flags');
    const created = await api.call('createConnection', { body: { ...objectStore!.request, read: false, write: true } });
    expect(created.body).toMatchObject({ read: false, write: true });

    const dim = connectionCases(env.twin.s3.endpoint, ' dim').find((c) => c.request.type === 'pricing_dim')!;
    const refused = await api.call('createConnection', { body: { ...dim.request, write: false } });
    expect(refused.status).toBe(400);
    expect(refused.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { write: expect.stringContaining('pricing_dim') },
    });
  });

  it('keeps description and tags, and refuses repeated tags', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' tags');
    const created = await api.call('createConnection', {
      body: { ...objectStore!.request, description: 'landing zone', tags: ['raw', 'eu'] },
    });
    expect(created.body).toMatchObject({ description: 'landing zone', tags: ['raw', 'eu'] });
    const repeated = await api.call('createConnection', {
      body: { ...objectStore!.request, name: 'other', tags: ['raw', 'raw'] },
    });
    expect(repeated.problem).toMatchObject({ code: '10-1400', extraDetails: { tags: 'must not repeat a tag' } });
  });

  it('assigns sequential ids per tenant', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' seq');
    const first = await api.call('createConnection', { body: { ...objectStore!.request, name: 'seq 1' } });
    const second = await api.call('createConnection', { body: { ...objectStore!.request, name: 'seq 2' } });
    expect(second.body.id).toBe(first.body.id + 1);
    const other = await env.clientFor('another-tenant', ['editor']);
    expect((await other.call('createConnection', { body: { ...objectStore!.request, name: 'seq 1' } })).body.id).toBe(
      1,
    );
  });
});

describe('names are unique per tenant', () => {
  it('refuses a second connection with the same name, ignoring case and surrounding space (10-409)', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint);
    expect((await api.call('createConnection', { body: { ...objectStore!.request, name: 'Sales Lake' } })).status).toBe(
      201,
    );
    const duplicate = await api.call('createConnection', { body: { ...objectStore!.request, name: '  sales lake ' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.problem).toMatchObject({
      code: '10-409',
      detail: 'Entity connection with the same unique field name already exists',
    });
  });

  it('lets another tenant use the same name', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint);
    const other = await env.clientFor('tenant-b', ['editor']);
    expect(
      (await other.call('createConnection', { body: { ...objectStore!.request, name: 'Sales Lake' } })).status,
    ).toBe(201);
  });
});

describe('idempotent creates', () => {
  it('returns the first result for a retried request with the same Idempotency-Key', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' idem');
    const headers = { 'idempotency-key': 'create-idem-1' };
    const first = await api.call('createConnection', { body: objectStore!.request, headers });
    const retry = await api.call('createConnection', { body: objectStore!.request, headers });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const list = await api.call('listConnections', { query: { filter: `name eq '${objectStore!.request.name}'` } });
    expect(list.body.total).toBe(1);
  });

  it('creates once when the same key races', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' idem race');
    const headers = { 'idempotency-key': 'create-idem-race' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api.call('createConnection', { body: objectStore!.request, headers })),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
  });

  it('refuses a key reused with a different request', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' idem other');
    const headers = { 'idempotency-key': 'create-idem-2' };
    expect((await api.call('createConnection', { body: objectStore!.request, headers })).status).toBe(201);
    const reused = await api.call('createConnection', {
      body: { ...objectStore!.request, name: 'something else' },
      headers,
    });
    expect(reused.status).toBe(400);
    expect(reused.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'Idempotency-Key': 'already used with a different request' },
    });
  });

  it('validates the key', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' idem bad');
    const response = await api.call('createConnection', {
      body: objectStore!.request,
      headers: { 'idempotency-key': 'x'.repeat(300) },
    });
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'Idempotency-Key': expect.any(String) },
    });
  });
});

describe('deleting connections', () => {
  it('deletes, then reads as 10-404, and frees the name', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' delete');
    const { id } = (await api.call('createConnection', { body: objectStore!.request })).body;
    const deleted = await api.call('deleteConnection', { params: { connection_id: id } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const read = await api.call('getConnection', { params: { connection_id: id } });
    expect(read.status).toBe(404);
    expect(read.problem).toMatchObject({ code: '10-404', detail: `Entity connection with ID ${id} not found` });
    expect((await api.call('createConnection', { body: objectStore!.request })).status).toBe(201);
  });

  it('honours lock_version when given (10-1006 when stale)', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint, ' delete lock');
    const { id } = (await api.call('createConnection', { body: objectStore!.request })).body;
    const stale = await api.call('deleteConnection', { params: { connection_id: id }, query: { lock_version: 5 } });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect(
      (await api.call('deleteConnection', { params: { connection_id: id }, query: { lock_version: 0 } })).status,
    ).toBe(204);
  });

  it('answers 10-404 for a connection that does not exist', async () => {
    const response = await api.call('deleteConnection', { params: { connection_id: 424242 } });
    expect(response.status).toBe(404);
    expect(response.problem.code).toBe('10-404');
  });
});
