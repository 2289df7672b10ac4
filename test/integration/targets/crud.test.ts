import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient, type CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import {
  CONNECTION_OF,
  KIND_FIELDS,
  createTarget,
  sentBack,
  targetRequest,
  writableConnection,
  type TargetKind,
} from './fixtures';

/** Create, read, list, update and delete of targets; lock_version and unique names under parallel requests. */
let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor('targets-crud', ['editor']);
});
afterAll(() => env?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KINDS: readonly TargetKind[] = ['bucket', 'table', 'pricing'];
const s3 = () => env.twin.s3.endpoint;
const create = (body: CallOptions<'createTarget'>['body'], headers?: Record<string, string>) =>
  api.call('createTarget', { body, headers });
const read = (id: number) => api.call('getTarget', { params: { target_id: id } });
const update = (id: number, body: CallOptions<'updateTarget'>['body']) =>
  api.call('updateTarget', { params: { target_id: id }, body });
const merge = (id: number, body: CallOptions<'mergeTarget'>['body']) =>
  api.call('mergeTarget', { params: { target_id: id }, body });
const remove = (id: number, lockVersion?: number) =>
  api.call('deleteTarget', { params: { target_id: id }, query: { lock_version: lockVersion } });

describe('creating targets of every kind', () => {
  it.each(KINDS)('stores a %s target and answers with its common and own fields only', async (kind) => {
    const connection = await writableConnection(api, s3(), CONNECTION_OF[kind]);
    const request = targetRequest(kind, connection.id, { description: 'monthly', tags: ['finance', 'eu'] });
    const created = await create(request);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/data/v1/targets/${created.body.id}`);
    expect(created.json).toEqual({
      id: expect.any(Number),
      lock_version: 0,
      type: kind,
      name: request.name,
      description: 'monthly',
      tags: ['finance', 'eu'],
      connection_id: connection.id,
      ...KIND_FIELDS[kind],
      created_by: { id: expect.stringMatching(/^targets-crud\./), name: expect.any(String) },
      created_date: expect.stringMatching(ISO),
      last_modified_by: created.body.created_by,
      last_modified_date: created.body.created_date,
    });
    expect((await read(created.body.id)).json).toEqual(created.json);
  });

  it('writes tables through analytics_db and folders through cloud_store too', async () => {
    const bigquery = await writableConnection(api, s3(), 'analytics_db/service_account_key');
    const table = await create(targetRequest('table', bigquery.id, { table_name: `t${'x'.repeat(400)}` }));
    expect(table.status, table.text).toBe(201);
    const gcs = await writableConnection(api, s3(), 'cloud_store/service_account_key');
    const folder = await create(targetRequest('bucket', gcs.id, { path: 'acme_raw/landing/{export_id}/' }));
    expect(folder.status, folder.text).toBe(201);
    expect(folder.body).toMatchObject({ path: 'acme_raw/landing/{export_id}/' });
  });

  it('requires the kind fields and refuses those of other kinds (10-1400)', async () => {
    const connection = await writableConnection(api, s3(), 'object_store/secret_key');
    const missing = await create(unchecked({ name: 'no path', type: 'bucket', connection_id: connection.id }));
    expect(missing.problem).toMatchObject({ code: '10-1400', extraDetails: { path: 'is required' } });
    const foreign = await create(unchecked({ ...targetRequest('bucket', connection.id), table_name: 'T' }));
    expect(foreign.problem).toMatchObject({ code: '10-1400', extraDetails: { table_name: 'is not a known field' } });
  });

  it('answers 10-404 for a connection that does not exist', async () => {
    const response = await create(targetRequest('table', 987_654));
    expect(response.problem).toMatchObject({ code: '10-404', detail: 'Entity connection with ID 987654 not found' });
  });

  it('replays an Idempotency-Key retry and counts one use of the connection', async () => {
    const connection = await writableConnection(api, s3(), 'warehouse/password');
    const request = targetRequest('table', connection.id);
    const headers = { 'idempotency-key': 'target-idem-1' };
    const [first, retry] = [await create(request, headers), await create(request, headers)];
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await remove(first.body.id)).status).toBe(204);
    expect((await api.call('deleteConnection', { params: { connection_id: connection.id } })).status).toBe(204);
  });
});

describe('names are unique per tenant', () => {
  it('refuses a second target with the same name, ignoring case and surrounding space (10-409)', async () => {
    const { connection } = await createTarget(api, s3(), 'table', { name: 'Nightly Sales' });
    const duplicate = await create(targetRequest('table', connection.id, { name: ' nightly sales ' }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.problem).toMatchObject({
      code: '10-409',
      detail: 'Entity target with the same unique field name already exists',
    });
  });

  it('lets exactly one of parallel creates with one name succeed, and counts only its use', async () => {
    const connection = await writableConnection(api, s3(), 'warehouse/password');
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => create(targetRequest('table', connection.id, { name: 'Contested' }))),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = responses.find((response) => response.status === 201)!;
    expect((await remove(winner.body.id)).status).toBe(204);
    expect((await api.call('deleteConnection', { params: { connection_id: connection.id } })).status).toBe(204);
  });

  it('lets exactly one of parallel renames to one name succeed', async () => {
    const targets = await Promise.all([1, 2, 3, 4].map(async () => (await createTarget(api, s3(), 'pricing')).target));
    const responses = await Promise.all(
      targets.map((target) => update(target.id, sentBack(target, { name: 'Renamed Alike' }))),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409]);
  });
});

describe('reading and listing', () => {
  it('answers 10-404 for a target that does not exist', async () => {
    const response = await read(999_999);
    expect(response.problem).toMatchObject({
      status: 404,
      code: '10-404',
      detail: 'Entity target with ID 999999 not found',
    });
  });

  it('pages, sorts and filters in the list envelope', async () => {
    const tenant = await env.clientFor('targets-list', ['editor']);
    const connection = await writableConnection(tenant, s3(), 'warehouse/password');
    for (const name of ['charlie', 'alpha', 'bravo']) {
      expect(
        (await tenant.call('createTarget', { body: targetRequest('table', connection.id, { name }) })).status,
      ).toBe(201);
    }
    const page = await tenant.call('listTargets', { query: { sort: 'name', offset: 1, limit: 1 } });
    expect(page.body).toMatchObject({ offset: 1, limit: 1, total: 3, items: [{ name: 'bravo' }] });
    const filtered = await tenant.call('listTargets', { query: { filter: `type eq 'table' and name sw 'a'` } });
    expect(filtered.body.items.map((target) => target.name)).toEqual(['alpha']);
    const bad = await tenant.call('listTargets', { query: { filter: 'path eq 1' } });
    expect(bad.problem).toMatchObject({ code: '10-1400', extraDetails: { filter: expect.any(String) } });
  });
});

describe('PUT /targets/{id}: full update', () => {
  it('replaces every field, may change the kind and connection, bumps lock_version', async () => {
    const { target } = await createTarget(api, s3(), 'table', { description: 'first', tags: ['a'] });
    const bucket = await writableConnection(api, s3(), 'object_store/secret_key');
    const updated = await update(target.id, {
      id: target.id,
      lock_version: 0,
      type: 'bucket',
      name: 'moved',
      connection_id: bucket.id,
      path: 'demo/sales/out/',
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toEqual({
      id: target.id,
      lock_version: 1,
      type: 'bucket',
      name: 'moved',
      description: null,
      tags: null,
      connection_id: bucket.id,
      path: 'demo/sales/out/',
      created_by: target.created_by,
      created_date: target.created_date,
      last_modified_by: target.created_by,
      last_modified_date: expect.stringMatching(ISO),
    });
    expect((await read(target.id)).json).toEqual(updated.json);
  });

  it('answers 30-5001 when the ids of URL and body differ, changing nothing', async () => {
    const { target } = await createTarget(api, s3(), 'pricing');
    const response = await update(target.id, sentBack(target, { id: target.id + 1000, name: 'other' }));
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({
      code: '30-5001',
      detail: `Target ID in URL (${target.id}) and body (${target.id + 1000}) mismatch`,
    });
    expect((await read(target.id)).json).toEqual(target);
  });

  it('refuses a stale lock_version (10-1006)', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    expect((await update(target.id, sentBack(target, { description: 'one' }))).status).toBe(200);
    const stale = await update(target.id, sentBack(target, { description: 'two' }));
    expect(stale.problem).toMatchObject({ status: 409, code: '10-1006' });
    expect((await read(target.id)).body).toMatchObject({ lock_version: 1, description: 'one' });
  });

  it('lets exactly one of parallel updates from one lock_version win', async () => {
    const { target } = await createTarget(api, s3(), 'bucket');
    const responses = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => update(target.id, sentBack(target, { description: `writer ${n}` }))),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(
      responses.filter((response) => response.status === 409).every((response) => response.problem.code === '10-1006'),
    ).toBe(true);
    const winner = responses.find((response) => response.status === 200)!;
    expect((await read(target.id)).json).toEqual(winner.json);
  });

  it('answers 10-404 for a target that does not exist', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    const response = await update(424_242, sentBack(target, { id: 424_242 }));
    expect(response.problem.code).toBe('10-404');
  });
});

describe('PATCH /targets/{id}: merge', () => {
  it('changes only the fields sent; null removes an optional one', async () => {
    const { target } = await createTarget(api, s3(), 'pricing', { description: 'kept?', tags: ['a'] });
    const merged = await merge(target.id, {
      id: target.id,
      lock_version: 0,
      type: 'pricing',
      description: null,
      table_path: 'Other\\',
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body).toMatchObject({
      lock_version: 1,
      description: null,
      tags: ['a'],
      project_path: KIND_FIELDS.pricing.project_path,
      table_path: 'Other\\',
    });
    expect((await read(target.id)).json).toEqual(merged.json);
  });

  it('changes the kind when the old kind’s fields are removed, and checks the result like an update', async () => {
    const { target } = await createTarget(api, s3(), 'bucket');
    const warehouse = await writableConnection(api, s3(), 'warehouse/password');
    const kept = await merge(target.id, {
      id: target.id,
      lock_version: 0,
      type: 'table',
      connection_id: warehouse.id,
      table_name: 'T',
    });
    expect(kept.problem).toMatchObject({ code: '10-1400', extraDetails: { path: 'is not a known field' } });
    const refused = await merge(target.id, {
      id: target.id,
      lock_version: 0,
      type: 'table',
      connection_id: warehouse.id,
      path: null,
      table_name: '_T',
    });
    expect(refused.problem.code).toBe('30-5007');
    const moved = await merge(target.id, {
      id: target.id,
      lock_version: 0,
      type: 'table',
      connection_id: warehouse.id,
      path: null,
      table_name: 'T',
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ type: 'table', connection_id: warehouse.id, table_name: 'T' });
    expect(moved.json).not.toHaveProperty('path');
  });

  it('answers 30-5001 for another id and 10-1006 for a stale lock_version', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    expect(
      (await merge(target.id, { id: target.id + 1, lock_version: 0, type: 'table', description: 'x' })).problem.code,
    ).toBe('30-5001');
    expect(
      (await merge(target.id, { id: target.id, lock_version: 3, type: 'table', description: 'x' })).problem.code,
    ).toBe('10-1006');
    expect((await read(target.id)).json).toEqual(target);
  });
});

describe('DELETE /targets/{id}', () => {
  it('deletes, then answers 10-404; refuses a stale lock_version (10-1006)', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    expect((await remove(target.id, 5)).problem.code).toBe('10-1006');
    expect((await remove(target.id, 0)).status).toBe(204);
    expect((await read(target.id)).problem.code).toBe('10-404');
    expect((await remove(target.id)).problem.code).toBe('10-404');
  });

  it('frees the name for a new target', async () => {
    const { connection, target } = await createTarget(api, s3(), 'table', { name: 'Reused name' });
    expect((await remove(target.id)).status).toBe(204);
    expect((await create(targetRequest('table', connection.id, { name: 'Reused name' }))).status).toBe(201);
  });
});
