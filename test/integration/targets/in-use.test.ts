import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionStore } from '../../../shared/connections/store';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { sourceRequest } from '../data-sources/fixtures';
import { createTarget, sentBack, targetRequest, writableConnection } from './fixtures';

/** A target is a use of its connection (30-1508), as a table reading it through a data source is (30-1507); races between uses and the delete. */
let env: TestTwin;
let api: ApiClient;
const TENANT = 'targets-in-use';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const createTargetOn = (connectionId: number) =>
  api.call('createTarget', { body: targetRequest('bucket', connectionId) });
const removeTarget = (id: number) => api.call('deleteTarget', { params: { target_id: id } });
const removeConnection = (id: number) => api.call('deleteConnection', { params: { connection_id: id } });
const readConnection = (id: number) => api.call('getConnection', { params: { connection_id: id } });
const createSourceOn = async (connectionId: number) =>
  (await api.call('createDataSource', { body: sourceRequest('bucket', connectionId) })).body;
const createTableOn = (sourceId: number) =>
  api.call('createDataTable', { body: { name: `table ${Math.random()}`, data_source_id: sourceId } });
const usesOf = async (connectionId: number) => {
  const { refs } = await connectionStore.get(TENANT, connectionId);
  return { tables: refs.tables ?? 0, targets: refs.targets ?? 0 };
};

describe('deleting a connection in use', () => {
  it('answers 30-1508 while a target uses it, and deletes it once the target is gone', async () => {
    const { connection, target } = await createTarget(api, s3(), 'bucket');
    const refused = await removeConnection(connection.id);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({
      code: '30-1508',
      detail: `Connection ${connection.id} is in use by targets`,
    });
    expect((await readConnection(connection.id)).status).toBe(200);
    expect((await removeTarget(target.id)).status).toBe(204);
    expect(await usesOf(connection.id)).toEqual({ tables: 0, targets: 0 });
    expect((await removeConnection(connection.id)).status).toBe(204);
  });

  it('answers 30-1507 for tables (read through a data source) and 30-1508 for targets, each while its use stands', async () => {
    const connection = await writableConnection(api, s3(), 'object_store/secret_key');
    const source = await createSourceOn(connection.id);
    const table = (await createTableOn(source.id)).body;
    const target = (await createTargetOn(connection.id)).body;
    expect(await usesOf(connection.id)).toEqual({ tables: 1, targets: 1 });
    // Both uses: the tables' use is named first.
    expect((await removeConnection(connection.id)).problem.code).toBe('30-1507');
    expect((await api.call('deleteDataTable', { params: { data_table_id: table.id } })).status).toBe(204);
    expect((await removeConnection(connection.id)).problem.code).toBe('30-1508');
    expect((await removeTarget(target.id)).status).toBe(204);
    expect((await removeConnection(connection.id)).status).toBe(204);
    // The data source no table read went with it.
    expect((await api.call('getDataSource', { params: { data_source_id: source.id } })).problem.code).toBe('10-404');
  });

  it('moves the use when an update changes the connection, and not when it fails', async () => {
    const { connection: first, target } = await createTarget(api, s3(), 'table');
    const second = await writableConnection(api, s3(), 'warehouse/oauth_client_credentials');
    const stale = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(target, { lock_version: 7, connection_id: second.id }),
    });
    expect(stale.problem.code).toBe('10-1006');
    expect([(await usesOf(first.id)).targets, (await usesOf(second.id)).targets]).toEqual([1, 0]);
    const moved = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(target, { connection_id: second.id }),
    });
    expect(moved.status, moved.text).toBe(200);
    expect([(await usesOf(first.id)).targets, (await usesOf(second.id)).targets]).toEqual([0, 1]);
    expect((await removeConnection(first.id)).status).toBe(204);
    expect((await removeConnection(second.id)).problem.code).toBe('30-1508');
  });
});

describe('races between a connection delete and target writes', () => {
  it('lets exactly one side win when targets are created while the connection is deleted', async () => {
    for (let round = 0; round < 6; round += 1) {
      const connection = await writableConnection(api, s3(), 'object_store/secret_key');
      const [deletion, ...creates] = await Promise.all([
        removeConnection(connection.id),
        ...Array.from({ length: 3 }, () => createTargetOn(connection.id)),
      ]);
      const created = creates.filter((response) => response.status === 201);
      for (const refused of creates.filter((response) => response.status !== 201)) {
        expect(refused.problem).toMatchObject({
          code: '10-404',
          detail: `Entity connection with ID ${connection.id} not found`,
        });
      }
      if (deletion.status === 204) {
        expect(created).toHaveLength(0);
        expect((await readConnection(connection.id)).status).toBe(404);
      } else {
        expect(deletion.problem.code).toBe('30-1508');
        expect(created.length).toBeGreaterThan(0);
        expect((await usesOf(connection.id)).targets).toBe(created.length);
      }
      // Either way no target names a connection that is gone.
      for (const { body } of created) expect((await readConnection(body.connection_id)).status).toBe(200);
    }
  });

  it('names the use that stopped the delete when tables and targets are created meanwhile', async () => {
    for (let round = 0; round < 4; round += 1) {
      const connection = await writableConnection(api, s3(), 'object_store/secret_key');
      const source = await createSourceOn(connection.id);
      const [deletion, table, target] = await Promise.all([
        removeConnection(connection.id),
        createTableOn(source.id),
        createTargetOn(connection.id),
      ]);
      if (deletion.status === 204) {
        // The data source went with the connection: the table found neither.
        expect([table.status, target.status]).toEqual([404, 404]);
        continue;
      }
      // The delete names a use that had committed: 30-1507 only after a table, 30-1508 only after a target.
      const code = deletion.problem.code;
      expect(code === '30-1507' ? table.status : code === '30-1508' ? target.status : code).toBe(201);
      expect(await usesOf(connection.id)).toEqual({
        tables: table.status === 201 ? 1 : 0,
        targets: target.status === 201 ? 1 : 0,
      });
    }
  });

  it('keeps the count right when targets are deleted while the connection is deleted', async () => {
    const connection = await writableConnection(api, s3(), 'object_store/secret_key');
    const targets = await Promise.all([1, 2, 3].map(async () => (await createTargetOn(connection.id)).body));
    const [deletion, ...removals] = await Promise.all([
      removeConnection(connection.id),
      ...targets.map((target) => removeTarget(target.id)),
    ]);
    expect(removals.every((response) => response.status === 204)).toBe(true);
    if (deletion.status === 204) {
      expect((await readConnection(connection.id)).status).toBe(404);
    } else {
      expect(deletion.problem.code).toBe('30-1508');
      expect(await usesOf(connection.id)).toEqual({ tables: 0, targets: 0 });
      expect((await removeConnection(connection.id)).status).toBe(204);
    }
  });

  it('moves the use exactly once when parallel updates change the connection', async () => {
    const { connection: first, target } = await createTarget(api, s3(), 'bucket');
    const others = await Promise.all([1, 2, 3, 4].map(() => writableConnection(api, s3(), 'object_store/secret_key')));
    const responses = await Promise.all(
      others.map((other) =>
        api.call('updateTarget', {
          params: { target_id: target.id },
          body: sentBack(target, { connection_id: other.id }),
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    const uses = await Promise.all([first, ...others].map(async (connection) => (await usesOf(connection.id)).targets));
    expect(uses.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(uses[0]).toBe(0);
  });
});
