import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  CONNECTION_OF,
  KIND_FIELDS,
  createConnection,
  createSource,
  sentBack,
  sourceRequest,
  type SourceKind,
} from './fixtures';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['demo'] });
  api = env.admin;
});
afterAll(() => env?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KINDS: readonly SourceKind[] = ['bucket', 'rdbms', 'delta_sharing', 'analytics_db'];
const s3 = () => env.twin.s3.endpoint;
const create = (body: CallOptions<'createDataSource'>['body'], headers?: Record<string, string>) =>
  api.call('createDataSource', { body, headers });
const read = (id: number) => api.call('getDataSource', { params: { data_source_id: id } });
const update = (id: number, body: CallOptions<'updateDataSource'>['body']) =>
  api.call('updateDataSource', { params: { data_source_id: id }, body });
const merge = (id: number, body: CallOptions<'mergeDataSource'>['body']) =>
  api.call('mergeDataSource', { params: { data_source_id: id }, body });
const remove = (id: number, lockVersion?: number) =>
  api.call('deleteDataSource', { params: { data_source_id: id }, query: { lock_version: lockVersion } });

describe('creating data sources of every kind', () => {
  it.each(KINDS)('stores a %s source and answers with its common and own fields only', async (kind) => {
    const connection = await createConnection(api, s3(), CONNECTION_OF[kind]);
    const request = sourceRequest(kind, connection.id, { description: 'monthly', tags: ['finance', 'eu'] });
    const created = await create(request);
    expect(created.status, created.text).toBe(201);
    const body = created.body;
    expect(created.headers.get('location')).toBe(`/api/data/v1/data-sources/${body.id}`);
    // The raw answer: the schema check behind .body drops fields no schema names.
    expect(created.json).toEqual({
      id: expect.any(Number),
      lock_version: 0,
      type: kind,
      name: request.name,
      description: 'monthly',
      tags: ['finance', 'eu'],
      connection_id: connection.id,
      ...KIND_FIELDS[kind],
      // A shared table's time travel, not pinned: the latest version.
      ...(kind === 'delta_sharing' ? { table_version: null, table_timestamp: null } : {}),
      created_by: { id: expect.stringMatching(/^local\./), name: expect.any(String) },
      created_date: expect.stringMatching(ISO),
      last_modified_by: body.created_by,
      last_modified_date: body.created_date,
    });
    const again = await read(body.id);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);
  });

  it('accepts the spec spelling "delta sharing" and answers delta_sharing', async () => {
    const connection = await createConnection(api, s3(), 'delta_sharing/delta_sharing_profile');
    const created = await create(sourceRequest('delta_sharing', connection.id, { type: 'delta sharing' }));
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('delta_sharing');
  });

  it('reads buckets through cloud_store connections too, and analytics_db through workload identity', async () => {
    const gcs = await createConnection(api, s3(), 'cloud_store/service_account_key');
    const bucket = await create(sourceRequest('bucket', gcs.id, { path: 'acme_raw/landing/2024/' }));
    expect(bucket.status, bucket.text).toBe(201);
    expect(bucket.body).toMatchObject({ path: 'acme_raw/landing/2024/' });
    const unrestricted = await createConnection(api, s3(), 'cloud_store/workload_identity');
    expect((await create(sourceRequest('bucket', unrestricted.id, { path: 'any_bucket' }))).body).toMatchObject({
      path: 'any_bucket',
    });
    const wi = await createConnection(api, s3(), 'analytics_db/workload_identity');
    const table = await create(sourceRequest('analytics_db', wi.id, { table_ref: 'acme-bi.`other dataset`.t' }));
    expect(table.status, table.text).toBe(201);
  });

  it('stores a bucket path as sent: a file keeps no trailing slash', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const folder = await create(sourceRequest('bucket', connection.id, { path: ' demo/sales/2024 /' }));
    expect(folder.status, folder.text).toBe(201);
    expect(folder.body).toMatchObject({ path: 'demo/sales/2024 /' });
    const file = await create(sourceRequest('bucket', connection.id, { path: 'demo/sales/2024/01.csv' }));
    expect(file.body).toMatchObject({ path: 'demo/sales/2024/01.csv' });
  });

  it('stores rdbms without a warehouse as null', async () => {
    const connection = await createConnection(api, s3(), 'warehouse/oauth_client_credentials');
    const created = await create(sourceRequest('rdbms', connection.id, { warehouse: undefined }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ query: KIND_FIELDS.rdbms.query, warehouse: null });
  });

  it('requires the kind fields and refuses those of other kinds (10-1400)', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const missing = await create(unchecked({ name: 'no path', type: 'bucket', connection_id: connection.id }));
    expect(missing.status).toBe(400);
    expect(missing.problem).toMatchObject({ code: '10-1400', extraDetails: { path: 'is required' } });
    const foreign = await create(unchecked({ ...sourceRequest('bucket', connection.id), query: 'SELECT 1' }));
    expect(foreign.problem).toMatchObject({ code: '10-1400', extraDetails: { query: 'is not a known field' } });
    const unknownType = await create(unchecked({ ...sourceRequest('bucket', connection.id), type: 'parquet' }));
    expect(unknownType.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { type: expect.stringContaining('bucket, rdbms, delta_sharing, delta sharing, analytics_db') },
    });
  });
});

describe('names are unique per tenant', () => {
  it('refuses a second data source with the same name, ignoring case and surrounding space (10-409)', async () => {
    const { connection } = await createSource(api, s3(), 'bucket', { name: 'Sales Files' });
    const duplicate = await create(sourceRequest('bucket', connection.id, { name: ' sales files ' }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.problem).toMatchObject({
      code: '10-409',
      detail: 'Entity data source with the same unique field name already exists',
    });
  });
});

describe('idempotent creates', () => {
  it('returns the first result for a retry with the same Idempotency-Key, and counts one use of the connection', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const request = sourceRequest('bucket', connection.id);
    const headers = { 'idempotency-key': 'ds-idem-1' };
    const first = await create(request, headers);
    const retry = await create(request, headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // One reference only: deleting the one data source frees the connection.
    expect((await remove(first.body.id)).status).toBe(204);
    expect((await api.call('deleteConnection', { params: { connection_id: connection.id } })).status).toBe(204);
  });

  it('refuses a key reused with a different request', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const headers = { 'idempotency-key': 'ds-idem-2' };
    expect((await create(sourceRequest('bucket', connection.id), headers)).status).toBe(201);
    const reused = await create(sourceRequest('bucket', connection.id), headers);
    expect(reused.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { 'Idempotency-Key': 'already used with a different request' },
    });
  });
});

describe('PUT /data-sources/{id}: full update', () => {
  it('replaces every field, bumps lock_version and keeps the audit of creation', async () => {
    const { source } = await createSource(api, s3(), 'rdbms', { description: 'first', tags: ['a'] });
    const updated = await update(source.id, {
      id: source.id,
      lock_version: 0,
      type: 'rdbms',
      name: 'renamed query',
      connection_id: source.connection_id,
      query: 'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      id: source.id,
      lock_version: 1,
      name: 'renamed query',
      description: null,
      tags: null,
      warehouse: null,
      query: 'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    });
    expect(updated.body.created_date).toBe(source.created_date);
    expect((await read(source.id)).json).toEqual(updated.json);
  });

  it('accepts the GET response sent back as is', async () => {
    const { source } = await createSource(api, s3(), 'delta_sharing');
    const response = await update(source.id, sentBack(source, { table: 'returns' }));
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ table: 'returns', share: 'partner', lock_version: 1 });
  });

  it('20-1004 when the URL and body ids differ', async () => {
    const { source } = await createSource(api, s3(), 'bucket');
    const response = await update(source.id, sentBack(source, { id: source.id + 1000 }));
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({ code: '20-1004', detail: 'Data source id in URL and request mismatch' });
  });

  it('10-1006 when lock_version is stale, and nothing changes', async () => {
    const { source } = await createSource(api, s3(), 'bucket');
    expect((await update(source.id, sentBack(source, { description: 'first' }))).status).toBe(200);
    const stale = await update(source.id, sentBack(source, { description: 'second' }));
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect((await read(source.id)).body).toMatchObject({ description: 'first', lock_version: 1 });
  });

  it('refuses a change of kind (10-1400)', async () => {
    const { source } = await createSource(api, s3(), 'bucket');
    const response = await update(source.id, {
      id: source.id,
      lock_version: 0,
      name: source.name!,
      connection_id: source.connection_id,
      ...KIND_FIELDS.rdbms,
      type: 'rdbms',
    });
    expect(response.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { type: `cannot change: data source ${source.id} is of type bucket` },
    });
  });

  it('10-409 when renaming onto another data source; 10-404 for an unknown one', async () => {
    const { source: first } = await createSource(api, s3(), 'bucket');
    const { source: second } = await createSource(api, s3(), 'bucket');
    const clash = await update(second.id, sentBack(second, { name: first.name!.toUpperCase() }));
    expect(clash.status).toBe(409);
    expect(clash.problem.code).toBe('10-409');
    const unknown = await update(424242, sentBack(second, { id: 424242 }));
    expect(unknown.status).toBe(404);
    expect(unknown.problem).toMatchObject({ code: '10-404', detail: 'Entity data source with ID 424242 not found' });
  });
});

describe('PATCH /data-sources/{id}: merge patch', () => {
  it('changes only the fields sent; null clears an optional field', async () => {
    const { source } = await createSource(api, s3(), 'rdbms', { description: 'keep me?', tags: ['x'] });
    const response = await merge(source.id, {
      id: source.id,
      lock_version: 0,
      type: 'rdbms',
      description: null,
      warehouse: 'compute_wh',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      name: source.name,
      description: null,
      tags: ['x'],
      query: source.query,
      warehouse: 'compute_wh',
      lock_version: 1,
    });
  });

  it('accepts either spelling of the delta-sharing type', async () => {
    const { source } = await createSource(api, s3(), 'delta_sharing');
    const response = await merge(source.id, {
      id: source.id,
      lock_version: 0,
      type: 'delta sharing',
      schema: 'wholesale',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ type: 'delta_sharing', schema: 'wholesale' });
  });

  it('validates the merged document like a full update', async () => {
    const { source } = await createSource(api, s3(), 'bucket');
    const cleared = await merge(source.id, { id: source.id, lock_version: 0, type: 'bucket', path: null });
    expect(cleared.problem).toMatchObject({ code: '10-1400', extraDetails: { path: 'is required' } });
    const outside = await merge(source.id, { id: source.id, lock_version: 0, type: 'bucket', path: 'demo/other/' });
    expect(outside.problem).toMatchObject({ code: '30-1106' });
    const mismatch = await merge(source.id, { id: source.id + 1, lock_version: 0, type: 'bucket' });
    expect(mismatch.problem.code).toBe('20-1004');
    const stale = await merge(source.id, { id: source.id, lock_version: 7, type: 'bucket', description: 'x' });
    expect(stale.problem.code).toBe('10-1006');
  });
});

describe('DELETE /data-sources/{id}', () => {
  it('deletes, then reads as 10-404, and frees the name', async () => {
    const { source, connection } = await createSource(api, s3(), 'bucket');
    const deleted = await remove(source.id);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await read(source.id);
    expect(gone.problem).toMatchObject({ code: '10-404', detail: `Entity data source with ID ${source.id} not found` });
    expect((await create(sourceRequest('bucket', connection.id, { name: source.name! }))).status).toBe(201);
  });

  it('honours lock_version when given (10-1006 when stale)', async () => {
    const { source } = await createSource(api, s3(), 'bucket');
    const stale = await remove(source.id, 3);
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect((await remove(source.id, 0)).status).toBe(204);
  });

  it('answers 10-404 for a data source that does not exist', async () => {
    expect((await remove(424242)).problem).toMatchObject({
      code: '10-404',
      detail: 'Entity data source with ID 424242 not found',
    });
  });
});

describe('GET /data-sources', () => {
  it('lists, filters and sorts by the documented fields', async () => {
    const lister = await env.clientFor('ds-listing', ['editor']);
    const ids: Record<SourceKind, number> = {} as Record<SourceKind, number>;
    for (const kind of KINDS)
      ids[kind] = (
        await createSource(lister, s3(), kind, {
          tags: kind === 'bucket' ? ['Files'] : ['db'],
          description: `${kind} data`,
        })
      ).source.id;
    const list = (query: CallOptions<'listDataSources'>['query']) => lister.call('listDataSources', { query });
    const all = (await list({})).body;
    expect(all).toMatchObject({ offset: 0, limit: 4, total: 4 });
    expect(all.items.map((item) => item.id)).toEqual(KINDS.map((kind) => ids[kind]));

    const query = async (parameters: CallOptions<'listDataSources'>['query']) => (await list(parameters)).body;
    expect((await query({ filter: "type eq 'rdbms'" })).items.map((item) => item.id)).toEqual([ids.rdbms]);
    expect((await query({ filter: "tags co 'files'" })).total).toBe(1);
    expect((await query({ filter: `connection_id eq ${all.items[1]!.connection_id}` })).items[0]!.id).toBe(ids.rdbms);
    expect((await query({ filter: "description sw 'delta' or name co 'ANALYTICS'" })).total).toBe(2);
    expect(
      (
        await query({
          filter: "created_date gt '2020-01-01T00:00:00Z' and last_modified_date gt '2020-01-01T00:00:00Z'",
        })
      ).total,
    ).toBe(4);
    expect((await query({ filter: 'id ge 3' })).total).toBe(2);
    expect((await query({ sort: '-type' })).items.map((item) => item.type)).toEqual([
      'rdbms',
      'delta_sharing',
      'bucket',
      'analytics_db',
    ]);
    expect((await query({ sort: '-connection_id', limit: '1', offset: '1' })).items).toHaveLength(1);
    expect((await list({ filter: "secret eq 'x'" })).problem).toMatchObject({
      code: '10-1400',
      extraDetails: { filter: expect.any(String) },
    });
  });
});
