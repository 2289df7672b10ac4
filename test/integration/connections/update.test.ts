import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTOR_TOGGLES } from '../../../shared/features/catalogue';
import type { ConnectionCreateRequest } from '../../../shared/model/connection';
import { unchecked, type ApiClient } from '../../support/api-client';
import { connectionCases, deltaSharingProfile, serviceAccountKeyJson } from '../../support/connections';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  connectionUpdateCalls,
  INVALID_DELTA_SHARING_PROFILES,
  INVALID_SERVICE_ACCOUNT_KEYS,
  MISMATCHED_WORKLOAD_IDENTITY,
  OAUTH_DELTA_SHARING_PROFILE,
  hasBuiltConnector,
  WAREHOUSE_OAUTH_AUTH,
} from './update-support';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['demo'] });
  api = env.admin;
});
afterAll(() => env?.close());

let sequence = 0;
const { objectStore, connectionCase, create, put, putBack, patch, merge, testStored, putMapping } =
  connectionUpdateCalls(() => env);

describe('PUT /connections/{id}: full update', () => {
  it('replaces the fields, bumps lock_version, and keeps the stored secret when none is sent', async () => {
    const created = await create(objectStore());
    const { secret_access_key: _secret, ...auth } = objectStore().auth;
    const updated = await put(created.id, {
      id: created.id,
      lock_version: 0,
      type: 'object_store',
      name: 'renamed store',
      auth,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      lock_version: 1,
      name: 'renamed store',
      description: null,
      tags: null,
      path_restriction: null,
      read: true,
      write: false,
    });
    expect(updated.body.created_date).toBe(created.created_date);
    expect(Date.parse(updated.body.last_modified_date)).toBeGreaterThanOrEqual(Date.parse(created.last_modified_date));
    // The kept secret still opens and works against S3.
    expect((await testStored(created.id, { type: 'object_store' })).status).toBe(200);
  });

  it('accepts the GET response sent back as is (audit fields are ignored)', async () => {
    const created = await create(objectStore());
    const response = await putBack(created, { description: 'changed' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      description: 'changed',
      lock_version: 1,
      tags: ['a'],
      path_restriction: 'demo/',
    });
  });

  it('replaces the secret when one is sent', async () => {
    const created = await create(objectStore());
    const response = await putBack(created, { auth: { ...created.auth, secret_access_key: 'WRONG-SECRET' } });
    expect(response.status).toBe(200);
    // s3rver does not check SigV4 signatures, so prove the change through the stored test of another key.
    const keyChanged = await putBack(response.body, { auth: { ...created.auth, access_key_id: 'NOT-A-KEY' } });
    expect(keyChanged.status).toBe(200);
    expect((await testStored(created.id, { type: 'object_store' })).problem.code).toBe('30-1116');
  });

  it('30-1600 when the URL and body ids differ', async () => {
    const created = await create(objectStore());
    const response = await putBack(created, { id: created.id + 1000 });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-1600',
      detail: `Connection ID in URL (${created.id}) and body (${created.id + 1000}) mismatch`,
    });
  });

  it('10-1006 when lock_version is stale, and nothing changes', async () => {
    const created = await create(objectStore());
    expect((await putBack(created, { description: 'first' })).status).toBe(200);
    const stale = await putBack(created, { description: 'second' });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect((await api.call('getConnection', { params: { connection_id: created.id } })).body).toMatchObject({
      description: 'first',
      lock_version: 1,
    });
  });

  it('10-409 when renaming onto another connection, and a rename frees the old name', async () => {
    const first = await create(objectStore('alpha'));
    const second = await create(objectStore('beta'));
    const clash = await putBack(second, { name: 'ALPHA' });
    expect(clash.status).toBe(409);
    expect(clash.problem.code).toBe('10-409');
    expect((await putBack(first, { name: 'gamma' })).status).toBe(200);
    expect((await putBack(second, { name: 'alpha' })).status).toBe(200);
    expect((await api.call('createConnection', { body: objectStore('beta') })).status).toBe(201);
  });

  it('refuses a type change and an auth_type change without the new secret', async () => {
    const warehouse = connectionCase('warehouse/password', ' put');
    const created = await create(warehouse.request);
    const typeChange = await put(created.id, { ...objectStore(), id: created.id, lock_version: 0 });
    expect(typeChange.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { type: expect.stringContaining('warehouse') },
    });
    const authChange = await putBack(created, { auth: WAREHOUSE_OAUTH_AUTH });
    expect(authChange.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'auth.client_secret': 'is required when auth_type changes' },
    });
  });

  it('requires auth for analytics_db and delta_sharing', async () => {
    for (const label of ['analytics_db/service_account_key', 'delta_sharing/delta_sharing_profile']) {
      const connection = connectionCase(label, ' auth');
      const created = await create(connection.request);
      const { auth: _auth, ...withoutAuth } = created;
      const response = await put(created.id, unchecked(withoutAuth));
      expect(response.problem, label).toMatchObject({ code: '10-1400', extraDetails: { auth: 'is required' } });
      const withAuth = await putBack(withoutAuth, { auth: connection.request.auth });
      expect(withAuth.status, label).toBe(200);
    }
  });

  it('re-derives the redacted delta-sharing profile from a new profile', async () => {
    const connection = connectionCase('delta_sharing/delta_sharing_profile', ' profile');
    const created = await create(connection.request);
    const response = await putBack(created, {
      auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: OAUTH_DELTA_SHARING_PROFILE },
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(String(response.body.auth.delta_sharing_profile_content_redacted))).toMatchObject({
      endpoint: 'https://other.example.com/ds',
      clientSecret: '********',
    });
    expect(response.text).not.toContain('new-client-secret');
  });

  it('validates the configuration like a create', async () => {
    const created = await create(objectStore());
    const response = await putBack(created, { auth: { ...created.auth, endpoint: 'https://169.254.169.254' } });
    expect(response.problem.code).toBe('30-1130');
  });
});

describe('PATCH /connections/{id}: merge patch', () => {
  it('changes only the fields sent', async () => {
    const created = await create(objectStore());
    const response = await merge(created, { description: 'patched' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: created.name,
      description: 'patched',
      tags: ['a'],
      path_restriction: 'demo/',
      lock_version: 1,
    });
  });

  it('removes an optional field with null', async () => {
    const created = await create(objectStore());
    const response = await merge(created, { description: null, path_restriction: null });
    expect(response.body).toMatchObject({ description: null, path_restriction: null });
  });

  it('merges into auth and keeps the stored secret', async () => {
    const created = await create(objectStore());
    const response = await merge(created, { auth: { access_key_id: 'NOT-A-KEY' } });
    expect(response.status).toBe(200);
    // Compared on the wire: the response schema would strip a field it does not name.
    expect(response.json).toHaveProperty('auth', {
      auth_type: 'secret_key',
      access_key_id: 'NOT-A-KEY',
      endpoint: env.twin.s3.endpoint,
    });
    expect((await testStored(created.id, { type: 'object_store' })).problem.code).toBe('30-1116');
    const back = await merge(created, { lock_version: 1, auth: { access_key_id: 'S3RVER' } });
    expect(back.status).toBe(200);
    expect((await testStored(created.id, { type: 'object_store' })).status).toBe(200);
  });

  it('replaces auth as a whole when the patch switches auth_type', async () => {
    const warehouse = connectionCase('warehouse/password', ' patch');
    const created = await create(warehouse.request);
    const auth = { ...WAREHOUSE_OAUTH_AUTH, client_id: 'wh', client_secret: 'new-secret' };
    const response = await merge(created, { auth });
    expect(response.status).toBe(200);
    const { client_secret: _secret, ...visible } = auth;
    expect(response.json).toHaveProperty('auth', visible);
  });

  it('lets a name-only patch through for types whose PUT requires auth', async () => {
    const analytics = connectionCase('analytics_db/service_account_key', ' patch bq');
    const created = await create(analytics.request);
    const response = await merge(created, { name: 'bq renamed' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'bq renamed', dataset_id: 'sales' });
  });

  it('accepts application/json as well as application/merge-patch+json', async () => {
    const created = await create(objectStore());
    const response = await merge(created, { tags: ['b'] }, 'application/json');
    expect(response.body.tags).toEqual(['b']);
  });

  it('reports every invalid field of the merged document, by its wire path', async () => {
    const created = await create(objectStore());
    const response = await merge(created, { name: null, bogus: 1, auth: { endpoint: 7 } });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { name: 'is required', bogus: 'is not a known field', 'auth.endpoint': 'must be a string' },
    });
  });

  it('requires id, lock_version and type, checks ids, types and lock_version', async () => {
    const created = await create(objectStore());
    const missing = await patch(created.id, unchecked({ description: 'x' }));
    expect(missing.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { id: 'is required', lock_version: 'is required', type: expect.stringContaining('is required') },
    });
    expect((await merge(created, { id: created.id + 1 })).problem.code).toBe('30-1600');
    expect((await merge(created, { type: 'warehouse' })).problem.code).toBe('10-1400');
    expect((await merge(created, { lock_version: 3 })).problem.code).toBe('10-1006');
  });
});

describe('PUT /connections/{id}/type-mapping', () => {
  const pricing = (label: string) => create(connectionCase(label, ` mapping ${++sequence}`).request);

  it('stores the mapping of a pricing connection', async () => {
    for (const label of ['pricing_dim/oauth_client_credentials', 'pricing_sdk/private_key_jwt'] as const) {
      const created = await pricing(label);
      const response = await putMapping(created, {
        type_mapping: '{"PRICE":"decimal","SKU":"string"}',
        type_mapping_name: 'default',
      });
      expect(response.status, label).toBe(200);
      expect(response.body).toMatchObject({
        type_mapping: { PRICE: 'decimal', SKU: 'string' },
        type_mapping_name: 'default',
        lock_version: 1,
      });
      // A full update keeps it: it is changed only through this operation.
      const kept = await putBack(response.body, { description: 'x' });
      expect(kept.body).toHaveProperty('type_mapping', { PRICE: 'decimal', SKU: 'string' });
    }
  });

  it('30-4008 for a connection that is not a pricing connection', async () => {
    const created = await create(objectStore());
    const response = await putMapping(created, { type_mapping: '{}' });
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-4008',
      detail: `Connection ${created.id} is not a pricing DIM or pricing SDK connection`,
    });
  });

  it('30-4009 for a mapping that is not a JSON object of names to type names', async () => {
    const created = await pricing('pricing_dim/oauth_client_credentials');
    for (const type_mapping of ['{not json', '[]', '"text"', '{"a":1}', '{"":"string"}', '{"a":""}']) {
      const response = await putMapping(created, { type_mapping });
      expect(response.problem.code, type_mapping).toBe('30-4009');
    }
  });

  it('checks ids and lock_version', async () => {
    const created = await pricing('pricing_dim/oauth_client_credentials');
    expect((await putMapping(created, { id: created.id + 1, type_mapping: '{}' })).problem.code).toBe('30-1600');
    expect((await putMapping(created, { lock_version: 9, type_mapping: '{}' })).problem.code).toBe('10-1006');
  });
});

describe('configuration checks without calling the external system', () => {
  const post = (body: ConnectionCreateRequest) => api.call('createConnection', { body });

  it('refuses a service-account key that is not one (30-1320 cloud storage, 30-1415 analytics db)', async () => {
    for (const [type, code] of [
      ['cloud_store', '30-1320'],
      ['analytics_db', '30-1415'],
    ] as const) {
      for (const key of INVALID_SERVICE_ACCOUNT_KEYS) {
        const response = await post({
          name: `sa ${++sequence}`,
          type,
          auth: { auth_type: 'service_account_key', service_account_key_json: key },
        });
        expect(response.problem.code, `${type} ${key}`).toBe(code);
      }
    }
  });

  it('30-1322 when the workload identity e-mail names another project', async () => {
    const response = await post({ name: 'wi mismatch', type: 'cloud_store', auth: MISMATCHED_WORKLOAD_IDENTITY });
    expect(response.problem).toMatchObject({
      code: '30-1322',
      // Submitted values are quoted as excerpts of at most 40 characters.
      detail:
        'Project ID acme-analytics on the connection does not match the project ID in the service account email loader@other-project.iam.gserviceaccount…',
    });
  });

  it('validates the delta-sharing profile (30-30xx)', async () => {
    for (const [content, code] of INVALID_DELTA_SHARING_PROFILES) {
      const response = await post({
        name: `ds ${++sequence}`,
        type: 'delta_sharing',
        auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: content },
      });
      expect(response.problem.code, content).toBe(code);
    }
    const valid = await post({
      name: 'ds ok',
      type: 'delta_sharing',
      auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: deltaSharingProfile('tok') },
    });
    expect(valid.status).toBe(201);
  });

  it('30-4101 for a private key that is not an RSA PEM key', async () => {
    const sdk = connectionCase('pricing_sdk/private_key_jwt', ' pem');
    for (const private_key of ['', 'not a key', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----']) {
      const response = await post({
        ...sdk.request,
        name: `pem ${++sequence}`,
        auth: { ...sdk.request.auth, private_key },
      });
      expect(response.problem.code).toBe('30-4101');
    }
  });

  it('10-1008 for unusable token URLs and hosts', async () => {
    const dim = connectionCase('pricing_dim/oauth_client_credentials', ' urls');
    const badToken = await post({ ...dim.request, auth: { ...dim.request.auth, token_url: 'not a url' } });
    expect(badToken.problem).toMatchObject({ code: '10-1008', extraDetails: { 'auth.token_url': expect.any(String) } });
    const badHost = await post({ ...dim.request, auth: { ...dim.request.auth, host: 'bad host!' } });
    expect(badHost.problem).toMatchObject({ code: '10-1008', extraDetails: { 'auth.host': expect.any(String) } });
  });

  it('keeps a service-account key that is valid, taking the project from it', async () => {
    const response = await post({
      name: 'sa ok',
      type: 'cloud_store',
      auth: { auth_type: 'service_account_key', service_account_key_json: serviceAccountKeyJson('proj-x') },
    });
    expect(response.status).toBe(201);
    expect(JSON.stringify(response.body)).not.toContain('proj-x');
  });
});

describe('testing configurations whose connector is not built yet', () => {
  it('validates locally, then answers 10-1501 naming the connector’s toggle instead of pretending', async () => {
    for (const { label, request } of connectionCases(env.twin.s3.endpoint, ' t')) {
      if (hasBuiltConnector(request)) continue;
      const response = await api.call('testConnection', { body: request });
      expect(response.status, label).toBe(501);
      expect(response.problem).toMatchObject({
        code: '10-1501',
        detail: `Feature disabled unless feature flag ${CONNECTOR_TOGGLES[request.type]} is on`,
      });
    }
  });

  it('refuses pricing_sdk in the unsaved test (spec 2.3) and tests it once stored', async () => {
    const sdk = connectionCase('pricing_sdk/private_key_jwt', ' sdk test');
    const unsaved = await api.call('testConnection', { body: unchecked(sdk.request) });
    expect(unsaved.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { type: expect.stringContaining('must be one of') },
    });
    const created = await create(sdk.request);
    expect((await testStored(created.id, { type: 'pricing_sdk' })).problem.code).toBe('10-1501');
  });

  it('runs local validation before the connector', async () => {
    const response = await api.call('testConnection', {
      body: { type: 'delta_sharing', auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: '{' } },
    });
    expect(response.problem.code).toBe('30-3002');
  });
});
