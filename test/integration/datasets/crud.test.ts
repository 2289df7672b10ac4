/**
 * Datasets as resources: create with graph version 1, get, list, PUT, PATCH, delete; name
 * uniqueness, optimistic locking, id mismatch, tenant isolation and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient, type RequestBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});

afterAll(async () => {
  await env?.close();
});

const create = (body: RequestBody<'createDataset'>) => api.call('createDataset', { body });
const read = (id: number) => api.call('getDataset', { params: { dataset_id: id } });

describe('dataset CRUD', () => {
  it('creates a dataset with graph version 1, empty and draft', async () => {
    const response = await create({ name: 'sales', description: 'all sales', tags: ['finance'] });
    expect(response.status).toBe(201);
    const { id } = response.body;
    expect(response.headers.get('location')).toBe(`/api/data/v1/datasets/${id}`);
    expect(response.body).toMatchObject({
      name: 'sales',
      description: 'all sales',
      tags: ['finance'],
      lock_version: 0,
    });
    expect(response.body.latest_transformation_graph).toMatchObject({
      dataset_id: id,
      version_number: 1,
      version_display_name: 'V1',
      release_status: false,
      lock_version: 0,
      expiration_date: null,
    });
    const graph = await api.call('getDatasetVersion', { params: { dataset_id: id, version_number: 1 } });
    expect(graph.body).toMatchObject({
      nodes: [],
      edges: [],
      output_dataset_recipe_node_id: null,
      version_display_name: 'V1',
    });
    expect((await read(id)).body).toEqual(response.body);
  });

  it('refuses a second dataset of the same name, whatever its case (10-409)', async () => {
    await create({ name: 'Unique Name' });
    const again = await create({ name: ' unique name ' });
    expect(again.status).toBe(409);
    expect(again.problem.code).toBe('10-409');
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'dataset-create-1' };
    const first = await api.call('createDataset', { body: { name: 'idempotent' }, headers });
    const second = await api.call('createDataset', { body: { name: 'idempotent' }, headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
  });

  it('updates with PUT: name kept when omitted, description and tags cleared; stale lock_version is 10-1006', async () => {
    const { body: created } = await create({ name: 'put-me', description: 'd', tags: ['a'] });
    const updated = await api.call('updateDataset', {
      params: { dataset_id: created.id },
      body: { id: created.id, lock_version: 0 },
    });
    expect(updated.body).toMatchObject({ name: 'put-me', description: null, tags: null, lock_version: 1 });
    const renamed = await api.call('updateDataset', {
      params: { dataset_id: created.id },
      body: { id: created.id, lock_version: 1, name: 'put-renamed', tags: ['b'] },
    });
    expect(renamed.body).toMatchObject({ name: 'put-renamed', tags: ['b'], lock_version: 2 });
    const stale = await api.call('updateDataset', {
      params: { dataset_id: created.id },
      body: { id: created.id, lock_version: 1, name: 'x' },
    });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect((await read(created.id)).body.name).toBe('put-renamed');
  });

  it('merges with PATCH: fields omitted stay, null clears', async () => {
    const { body: created } = await create({ name: 'patch-me', description: 'd', tags: ['a'] });
    const patched = await api.call('mergeDataset', {
      params: { dataset_id: created.id },
      body: { id: created.id, lock_version: 0, description: null },
    });
    expect(patched.body).toMatchObject({ name: 'patch-me', description: null, tags: ['a'], lock_version: 1 });
    const stale = await api.call('mergeDataset', {
      params: { dataset_id: created.id },
      body: { id: created.id, lock_version: 0, name: 'late' },
    });
    expect(stale.problem.code).toBe('10-1006');
  });

  it('refuses a body naming another dataset (20-1005) and a name taken by another (10-409)', async () => {
    const { body: first } = await create({ name: 'first-of-two' });
    const { body: second } = await create({ name: 'second-of-two' });
    const mismatch = await api.call('updateDataset', {
      params: { dataset_id: first.id },
      body: { id: second.id, lock_version: 0 },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.problem.code).toBe('20-1005');
    const patchMismatch = await api.call('mergeDataset', {
      params: { dataset_id: first.id },
      body: { id: second.id, lock_version: 0 },
    });
    expect(patchMismatch.problem.code).toBe('20-1005');
    const taken = await api.call('mergeDataset', {
      params: { dataset_id: first.id },
      body: { id: first.id, lock_version: 0, name: 'SECOND-of-two' },
    });
    expect(taken.status).toBe(409);
    expect(taken.problem.code).toBe('10-409');
  });

  it('concurrent PUTs on one reading: exactly one wins, the others are 10-1006', async () => {
    const { body: created } = await create({ name: 'contended' });
    const results = await Promise.all(
      [1, 2, 3, 4].map((index) =>
        api.call('updateDataset', {
          params: { dataset_id: created.id },
          body: { id: created.id, lock_version: 0, description: `writer ${index}` },
        }),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409).map((result) => result.problem.code)).toEqual([
      '10-1006',
      '10-1006',
      '10-1006',
    ]);
    expect((await read(created.id)).body.lock_version).toBe(1);
  });

  it('lists with the envelope, filter and sort', async () => {
    await create({ name: 'list-b', tags: ['listed'] });
    await create({ name: 'list-a', tags: ['listed'] });
    const page = await api.call('listDatasets', { query: { filter: "tags co 'listed'", sort: 'name' } });
    expect(page.body).toMatchObject({ offset: 0, limit: 2, total: 2 });
    expect(page.body.items.map((item) => item.name)).toEqual(['list-a', 'list-b']);
    expect(page.body.items[0]?.latest_transformation_graph?.version_display_name).toBe('V1');
    const second = await api.call('listDatasets', {
      query: { filter: "tags co 'listed'", sort: 'name', offset: 1, limit: 1 },
    });
    expect(second.body.items.map((item) => item.name)).toEqual(['list-b']);
    const bad = await api.call('listDatasets', { query: unchecked({ sort: 'nope' }) });
    expect(bad.status).toBe(400);
  });

  it('deletes a dataset with its versions; lock_version guards it; the name is free again', async () => {
    const { body: created } = await create({ name: 'doomed' });
    const stale = await api.call('deleteDataset', { params: { dataset_id: created.id }, query: { lock_version: 5 } });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    expect(
      (await api.call('deleteDataset', { params: { dataset_id: created.id }, query: { lock_version: 0 } })).status,
    ).toBe(204);
    const gone = await read(created.id);
    expect(gone.status).toBe(404);
    expect(gone.problem.code).toBe('10-404');
    expect(
      (await api.call('getDatasetVersion', { params: { dataset_id: created.id, version_number: 1 } })).status,
    ).toBe(404);
    expect((await create({ name: 'doomed' })).status).toBe(201);
  });
});

describe('isolation and permissions', () => {
  it('another tenant sees and changes none of it', async () => {
    const { body: created } = await create({ name: 'private' });
    const id = created.id;
    const other = await env.clientFor('other-tenant', ['admin']);
    const version = { dataset_id: id, version_number: 1 };
    const refused = {
      getDataset: await other.call('getDataset', { params: { dataset_id: id } }),
      updateDataset: await other.call('updateDataset', {
        params: { dataset_id: id },
        body: { id, lock_version: 0, name: 'stolen' },
      }),
      mergeDataset: await other.call('mergeDataset', {
        params: { dataset_id: id },
        body: { id, lock_version: 0, name: 'stolen' },
      }),
      deleteDataset: await other.call('deleteDataset', { params: { dataset_id: id } }),
      createDatasetVersion: await other.call('createDatasetVersion', {
        params: { dataset_id: id },
        body: { dataset_id: id },
      }),
      listDatasetVersions: await other.call('listDatasetVersions', { params: { dataset_id: id } }),
      getDatasetVersion: await other.call('getDatasetVersion', { params: version }),
      deleteDatasetVersion: await other.call('deleteDatasetVersion', { params: version }),
      listDatasetNodes: await other.call('listDatasetNodes', { params: version }),
      listDatasetEdges: await other.call('listDatasetEdges', { params: version }),
      addDatasetNode: await other.call('addDatasetNode', {
        params: version,
        body: { node_type: 'TABLE', dataset_id: id, data_table_id: 1 },
      }),
      getDatasetNode: await other.call('getDatasetNode', { params: { ...version, node_id: 1 } }),
      updateDatasetNode: await other.call('updateDatasetNode', {
        params: { ...version, node_id: 1 },
        body: { id: 1, lock_version: 0, node_type: 'TABLE', dataset_id: id },
      }),
      deleteDatasetNode: await other.call('deleteDatasetNode', { params: { ...version, node_id: 1 } }),
    };
    for (const [operation, response] of Object.entries(refused)) {
      expect(response.status, operation).toBe(404);
      expect(response.problem.code, operation).toBe('10-404');
    }
    expect((await other.call('listDatasets')).body.total).toBe(0);
    // The other tenant may use the same name: names are unique per tenant.
    expect((await other.call('createDataset', { body: { name: 'private' } })).status).toBe(201);
    expect((await read(id)).body).toMatchObject({ name: 'private', lock_version: 0 });
  });

  it('a viewer reads but cannot change; no token is 401', async () => {
    const { body: created } = await create({ name: 'viewed' });
    const viewer = await env.clientFor('local', ['viewer']);
    expect((await viewer.call('getDataset', { params: { dataset_id: created.id } })).status).toBe(200);
    for (const response of [
      await viewer.call('createDataset', { body: { name: 'nope' } }),
      await viewer.call('deleteDataset', { params: { dataset_id: created.id } }),
      await viewer.call('createDatasetVersion', {
        params: { dataset_id: created.id },
        body: { dataset_id: created.id },
      }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.problem.code).toBe('10-403');
    }
    expect((await env.anonymous.call('listDatasets')).status).toBe(401);
  });
});
