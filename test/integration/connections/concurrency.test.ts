import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { connectionStore } from '../../../shared/connections/store';
import { EntityStore } from '../../../shared/db/entity-store';
import { connectionCases } from '../../support/connections';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let api: ApiClient;
const TENANT = 'concurrency';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['editor']);
});
afterAll(() => env?.close());

const deleteConnection = (id: number) => api.call('deleteConnection', { params: { connection_id: id } });

let sequence = 0;
async function createConnection(name = `conn ${++sequence}`) {
  const [objectStore] = connectionCases(env.twin.s3.endpoint);
  const response = await api.call('createConnection', { body: { ...objectStore!.request, name } });
  expect(response.status).toBe(201);
  return response.body;
}

/**
 * Stand-ins for the resources that use connections (tables, which read one through a data
 * source, and targets), lighter than their own stores: they use the same repository
 * mechanism, a counter change on the connection committed in the same transaction as their
 * own write. The real ones are tested through the API in
 * test/integration/connections/tables-in-use.test.ts and test/integration/targets/in-use.test.ts.
 */
const Referrer = z.object({ name: z.string(), connection_id: z.int() });
const tables = new EntityStore({ kind: 'DATA_TABLE', label: 'data table', data: Referrer, references: {} });
const targets = new EntityStore({ kind: 'TARGET', label: 'target', data: Referrer, references: {} });
const actor = { id: 'test' };

function addTable(connectionId: number, name = `table ${++sequence}`) {
  return tables.create(TENANT, actor, () => ({ name, connection_id: connectionId }), {
    related: [connectionStore.reference(TENANT, connectionId, 'tables', 1)],
  });
}

describe('optimistic locking under concurrency', () => {
  it('lets exactly one of 24 parallel PATCHes with the same lock_version win', async () => {
    const { id } = await createConnection();
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        api.call('mergeConnection', {
          params: { connection_id: id },
          body: { id, lock_version: 0, type: 'object_store', description: `writer ${index}` },
        }),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    const losers = responses.filter((response) => response.status !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(23);
    for (const loser of losers) expect(loser.problem).toMatchObject({ status: 409, code: '10-1006' });
    const final = await api.call('getConnection', { params: { connection_id: id } });
    expect(final.body).toMatchObject({ lock_version: 1, description: winners[0]!.body.description });
  });

  it('applies 20 sequential PATCHes that each carry the current lock_version', async () => {
    const { id } = await createConnection();
    for (let version = 0; version < 20; version += 1) {
      const response = await api.call('mergeConnection', {
        params: { connection_id: id },
        body: { id, lock_version: version, type: 'object_store', tags: [`v${version}`] },
      });
      expect(response.body.lock_version).toBe(version + 1);
    }
  });
});

describe('name uniqueness under concurrency', () => {
  it('creates exactly one of 20 parallel creates with the same name', async () => {
    const [objectStore] = connectionCases(env.twin.s3.endpoint);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.call('createConnection', { body: { ...objectStore!.request, name: 'Contended' } }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) expect(response.problem.code).toBe('10-409');
    const listed = await api.call('listConnections', { query: { filter: "name eq 'Contended'" } });
    expect(listed.body.total).toBe(1);
  });

  it('lets exactly one of parallel renames take a free name', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => createConnection()));
    const responses = await Promise.all(
      ids.map(({ id }) =>
        api.call('mergeConnection', {
          params: { connection_id: id },
          body: { id, lock_version: 0, type: 'object_store', name: 'Taken once' },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(
      responses.filter((response) => response.status === 409).every((response) => response.problem.code === '10-409'),
    ).toBe(true);
  });
});

describe('"in use" through reference counters', () => {
  it('refuses to delete a connection tables read (30-1507) until that reference goes', async () => {
    const { id } = await createConnection();
    const { entity: table } = await addTable(id);
    expect((await connectionStore.get(TENANT, id)).refs).toEqual({ tables: 1 });

    const refused = await deleteConnection(id);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({ code: '30-1507', detail: `Connection ${id} is in use by active tables` });

    await tables.delete(TENANT, table.id, { related: [connectionStore.reference(TENANT, id, 'tables', -1)] });
    expect((await connectionStore.get(TENANT, id)).refs).toEqual({ tables: 0 });
    expect((await deleteConnection(id)).status).toBe(204);
  });

  it('refuses to delete a connection a target uses (30-1508)', async () => {
    const { id } = await createConnection();
    await targets.create(TENANT, actor, () => ({ name: 'target', connection_id: id }), {
      related: [connectionStore.reference(TENANT, id, 'targets', 1)],
    });
    const refused = await deleteConnection(id);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({ code: '30-1508', detail: `Connection ${id} is in use by targets` });
  });

  it('refuses a reference to a connection that does not exist, and writes nothing', async () => {
    await expect(addTable(987654, 'orphan')).rejects.toMatchObject({
      code: '10-404',
      message: 'Entity connection with ID 987654 not found',
    });
    expect((await tables.list(TENANT)).some((table) => table.data.name === 'orphan')).toBe(false);
  });

  it('keeps delete and new references consistent when they race', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { id } = await createConnection();
      const [deletion, ...references] = await Promise.allSettled([
        deleteConnection(id),
        ...Array.from({ length: 6 }, () => addTable(id)),
      ]);
      const referenced = references.filter((result) => result.status === 'fulfilled').length;
      const deleted = deletion.status === 'fulfilled' && deletion.value.status === 204;
      if (deleted) {
        // Every reference committed after the delete found no connection.
        expect(referenced).toBe(0);
        for (const result of references)
          expect(result).toMatchObject({ status: 'rejected', reason: { code: '10-404' } });
        expect((await api.call('getConnection', { params: { connection_id: id } })).status).toBe(404);
      } else {
        if (deletion.status !== 'fulfilled') throw deletion.reason;
        expect(deletion.value.status).toBe(409);
        expect(deletion.value.problem.code).toBe('30-1507');
        expect(referenced).toBeGreaterThan(0);
        expect((await connectionStore.get(TENANT, id)).refs.tables).toBe(referenced);
      }
    }
  });

  it('keeps references per tenant', async () => {
    const { id } = await createConnection();
    await expect(
      tables.create('someone-else', actor, () => ({ name: 'cross', connection_id: id }), {
        related: [connectionStore.reference('someone-else', id, 'tables', 1)],
      }),
    ).rejects.toMatchObject({ code: '10-404' });
    expect((await connectionStore.get(TENANT, id)).refs).toEqual({});
  });
});
