import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionStore } from '../../../shared/connections/store';
import { dataSourceStore } from '../../../shared/data-sources/store';
import { transactWrite } from '../../../shared/db/transactions';
import type { ApiClient, CallOptions } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createConnection, createSource, sentBack, sourceRequest, type SourceRequest } from './fixtures';

/** "In use" between connections, data sources and data tables, and races around it. */
let env: TestTwin;
let api: ApiClient;
const TENANT = 'ds-references';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const create = (body: SourceRequest) => api.call('createDataSource', { body });
const read = (id: number) => api.call('getDataSource', { params: { data_source_id: id } });
const update = (id: number, body: CallOptions<'updateDataSource'>['body']) =>
  api.call('updateDataSource', { params: { data_source_id: id }, body });
const remove = (id: number) => api.call('deleteDataSource', { params: { data_source_id: id } });
const readConnection = (id: number) => api.call('getConnection', { params: { connection_id: id } });
const removeConnection = (id: number) => api.call('deleteConnection', { params: { connection_id: id } });
const usesOf = async (connectionId: number) => (await connectionStore.get(TENANT, connectionId)).refs.data_sources ?? 0;

describe('a data source uses its connection', () => {
  it('is counted on its connection, and released when it is deleted', async () => {
    const { connection, source } = await createSource(api, s3(), 'bucket');
    expect(await usesOf(connection.id)).toBe(1);
    expect((await remove(source.id)).status).toBe(204);
    expect(await usesOf(connection.id)).toBe(0);
    expect((await removeConnection(connection.id)).status).toBe(204);
  });

  it('moves the use when an update changes the connection, and not otherwise', async () => {
    const { connection: first, source } = await createSource(api, s3(), 'rdbms');
    const second = await createConnection(api, s3(), 'warehouse/oauth_client_credentials');
    const renamed = await update(source.id, sentBack(source, { name: `${source.name} renamed` }));
    expect(renamed.status).toBe(200);
    expect([await usesOf(first.id), await usesOf(second.id)]).toEqual([1, 0]);
    const moved = await api.call('mergeDataSource', {
      params: { data_source_id: source.id },
      body: { id: source.id, lock_version: 1, type: 'rdbms', connection_id: second.id, warehouse: null },
    });
    expect(moved.status, moved.text).toBe(200);
    expect([await usesOf(first.id), await usesOf(second.id)]).toEqual([0, 1]);
    // No table reads it: the data source goes with the connection it now names, not with the first.
    expect((await removeConnection(first.id)).status).toBe(204);
    expect((await read(source.id)).status).toBe(200);
    expect((await removeConnection(second.id)).status).toBe(204);
    expect((await read(source.id)).problem.code).toBe('10-404');
  });

  it('moves nothing when the update fails', async () => {
    const { connection: first, source } = await createSource(api, s3(), 'bucket');
    const second = await createConnection(api, s3(), 'object_store/secret_key');
    const stale = await update(source.id, sentBack(source, { lock_version: 5, connection_id: second.id }));
    expect(stale.problem.code).toBe('10-1006');
    const { source: other } = await createSource(api, s3(), 'bucket');
    const clash = await update(source.id, sentBack(source, { name: other.name!, connection_id: second.id }));
    expect(clash.problem.code).toBe('10-409');
    expect([await usesOf(first.id), await usesOf(second.id)]).toEqual([1, 0]);
  });

  it('refuses to move onto a connection deleted meanwhile, and writes nothing', async () => {
    const { connection: first, source } = await createSource(api, s3(), 'bucket');
    const second = await createConnection(api, s3(), 'object_store/secret_key');
    expect((await removeConnection(second.id)).status).toBe(204);
    const response = await update(source.id, sentBack(source, { connection_id: second.id }));
    expect(response.problem).toMatchObject({
      code: '10-404',
      detail: `Entity connection with ID ${second.id} not found`,
    });
    expect(await usesOf(first.id)).toBe(1);
    expect((await read(source.id)).body.lock_version).toBe(0);
  });
});

describe('data tables use their data source', () => {
  it('keep the data source from being deleted (30-1707) while one references it', async () => {
    const { connection, source } = await createSource(api, s3(), 'bucket');
    // Data tables take this reference when they are created; stand in for one here.
    const reference = (delta: 1 | -1) =>
      transactWrite([dataSourceStore.reference(TENANT, source.id, 'data_tables', delta).item]);
    expect((await reference(1)).committed).toBe(true);
    const refused = await remove(source.id);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({
      code: '30-1707',
      detail: `Data source ${source.id} is in use by active tables`,
    });
    expect(await usesOf(connection.id)).toBe(1);
    expect((await reference(-1)).committed).toBe(true);
    expect((await remove(source.id)).status).toBe(204);
    expect(await usesOf(connection.id)).toBe(0);
  });
});

describe('races', () => {
  it('keeps data source creates and a connection delete consistent', async () => {
    for (let round = 0; round < 5; round += 1) {
      const connection = await createConnection(api, s3(), 'object_store/secret_key');
      const [deletion, ...creates] = await Promise.all([
        removeConnection(connection.id),
        ...Array.from({ length: 4 }, () => create(sourceRequest('bucket', connection.id))),
      ]);
      const created = creates.filter((response) => response.status === 201);
      for (const refused of creates.filter((response) => response.status !== 201)) {
        expect(refused.problem).toMatchObject({
          code: '10-404',
          detail: `Entity connection with ID ${connection.id} not found`,
        });
      }
      if (deletion.status === 204) {
        // Creates that committed first went with the connection (no table read them); the others found it gone.
        expect((await readConnection(connection.id)).status).toBe(404);
        for (const { body } of created) expect((await read(body.id)).problem.code).toBe('10-404');
      } else {
        // Data sources kept joining while the delete tried again: a conflict, and everything stays.
        expect(deletion.problem.code).toBe('10-1006');
        expect(await usesOf(connection.id)).toBe(created.length);
        for (const { body } of created) expect((await read(body.id)).status).toBe(200);
      }
    }
  });

  it('keeps counts right when updates move data sources between connections in parallel with deletes', async () => {
    const a = await createConnection(api, s3(), 'object_store/secret_key');
    const b = await createConnection(api, s3(), 'object_store/secret_key');
    const sources = await Promise.all(
      Array.from({ length: 6 }, async () => (await create(sourceRequest('bucket', a.id))).body),
    );
    await Promise.all(
      sources.map((source, index) =>
        index % 2 === 0 ? update(source.id, sentBack(source, { connection_id: b.id })) : remove(source.id),
      ),
    );
    const remaining = (await api.call('listDataSources')).body.items.filter((item) =>
      sources.some((source) => source.id === item.id),
    );
    expect(await usesOf(a.id)).toBe(remaining.filter((item) => item.connection_id === a.id).length);
    expect(await usesOf(b.id)).toBe(remaining.filter((item) => item.connection_id === b.id).length);
    expect(await usesOf(b.id)).toBe(3);
  });

  it('creates exactly one of 20 parallel creates with the same name', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => create(sourceRequest('bucket', connection.id, { name: 'Contended' }))),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) expect(response.problem.code).toBe('10-409');
    // Only the one that was created uses the connection.
    expect(await usesOf(connection.id)).toBe(1);
  });

  it('lets exactly one of 12 parallel PUTs with the same lock_version win', async () => {
    const { source } = await createSource(api, s3(), 'delta_sharing');
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => update(source.id, sentBack(source, { description: `writer ${index}` }))),
    );
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of responses.filter((response) => response.status !== 200))
      expect(loser.problem).toMatchObject({ status: 409, code: '10-1006' });
    expect((await read(source.id)).body).toMatchObject({ lock_version: 1, description: winners[0]!.body.description });
  });

  it('moves the use exactly once when parallel PUTs change the connection', async () => {
    const { connection: first, source } = await createSource(api, s3(), 'bucket');
    const targets = await Promise.all(
      Array.from({ length: 5 }, () => createConnection(api, s3(), 'object_store/secret_key')),
    );
    const responses = await Promise.all(
      targets.map((target) => update(source.id, sentBack(source, { connection_id: target.id }))),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    const uses = await Promise.all([first, ...targets].map((connection) => usesOf(connection.id)));
    expect(uses.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(uses[0]).toBe(0);
  });
});

describe('a data source is validated against its connection as read', () => {
  it('a reference or check made against a connection that changed since is refused with 10-1006', async () => {
    const connection = await createConnection(api, s3(), 'object_store/secret_key');
    const stale = connection.lock_version;
    const renamed = await api.call('mergeConnection', {
      params: { connection_id: connection.id },
      body: { id: connection.id, lock_version: stale, type: connection.type, description: 'changed' },
    });
    expect(renamed.status, renamed.text).toBe(200);

    for (const write of [
      connectionStore.reference(TENANT, connection.id, 'data_sources', 1, { seenLockVersion: stale }),
      connectionStore.unchanged(TENANT, connection.id, stale),
    ]) {
      const outcome = await transactWrite([write.item]);
      expect(outcome.committed).toBe(false);
      const reason = outcome.committed ? undefined : outcome.reasons[0];
      expect(write.onConditionFailure(reason?.item).code).toBe('10-1006');
    }
    expect(await usesOf(connection.id)).toBe(0);

    const fresh = connectionStore.reference(TENANT, connection.id, 'data_sources', 1, { seenLockVersion: stale + 1 });
    expect((await transactWrite([fresh.item])).committed).toBe(true);
    expect(await usesOf(connection.id)).toBe(1);
    expect(
      (await transactWrite([connectionStore.reference(TENANT, connection.id, 'data_sources', -1).item])).committed,
    ).toBe(true);
  });
});
