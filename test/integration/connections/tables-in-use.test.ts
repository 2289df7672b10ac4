/**
 * 30-1507 counts what the spec says: the tables that read a connection through its data
 * sources (ref_tables on the connection). Data sources no table reads go with the
 * connection; races between table writes, data source moves and the delete; the backfill of
 * connections stored before the counter existed.
 */
import { spawn } from 'node:child_process';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import { backfillConnectionTables } from '../../../shared/data-sources/connection-tables-backfill';
import { connectionStore } from '../../../shared/connections/store';
import { dataSourceStore } from '../../../shared/data-sources/store';
import { keys } from '../../../shared/db/keys';
import { asBody, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable } from '../../support/imports';
import { sentBack } from '../data-sources/fixtures';

let env: TestTwin;
let api: ApiClient;
const TENANT = 'connection-tables';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['editor']);
});
afterAll(() => env?.close());

const connection = () => createObjectStoreConnection(api, env);
const source = (connectionId: number) => createBucketSource(api, connectionId, 'landing/');
const createTableOn = (sourceId: number) =>
  api.call('createDataTable', { body: { name: `table ${Math.random()}`, data_source_id: sourceId } });
const removeTable = (id: number) => api.call('deleteDataTable', { params: { data_table_id: id } });
const removeConnection = (id: number) => api.call('deleteConnection', { params: { connection_id: id } });
const readSource = (id: number) => api.call('getDataSource', { params: { data_source_id: id } });
const moveSource = async (id: number, connectionId: number) =>
  api.call('updateDataSource', {
    params: { data_source_id: id },
    body: sentBack((await readSource(id)).body, { connection_id: connectionId }),
  });
const tablesOf = async (connectionId: number) => (await connectionStore.get(TENANT, connectionId)).refs.tables ?? 0;
const tablesOfSource = async (sourceId: number) => (await dataSourceStore.get(TENANT, sourceId)).refs.data_tables ?? 0;
const sourcesNaming = async (connectionId: number) =>
  (await dataSourceStore.list(TENANT)).filter((item) => item.data.connection_id === connectionId);

describe('deleting a connection', () => {
  it('takes the data sources no table reads with it, and frees their names', async () => {
    const id = await connection();
    const name = `kept name ${id}`;
    const named = await api.call('createDataSource', {
      body: { name, type: 'bucket', connection_id: id, path: 'landing/' },
    });
    const other = await source(id);
    expect((await removeConnection(id)).status).toBe(204);
    for (const sourceId of [named.body.id, other]) expect((await readSource(sourceId)).problem.code).toBe('10-404');
    const again = await api.call('createDataSource', {
      body: { name, type: 'bucket', connection_id: await connection(), path: 'landing/' },
    });
    expect(again.status, again.text).toBe(201);
  });

  it('answers 30-1507 while a table reads it through a data source, deletes nothing, and succeeds once the table is gone', async () => {
    const id = await connection();
    const [read, unread] = [await source(id), await source(id)];
    const table = await createTable(api, read);
    expect(await tablesOf(id)).toBe(1);
    const refused = await removeConnection(id);
    expect(refused.status).toBe(409);
    expect(refused.problem).toMatchObject({ code: '30-1507', detail: `Connection ${id} is in use by active tables` });
    expect((await readSource(unread)).status).toBe(200);
    expect((await removeTable(table)).status).toBe(204);
    expect([await tablesOf(id), await tablesOfSource(read)]).toEqual([0, 0]);
    expect((await removeConnection(id)).status).toBe(204);
    for (const sourceId of [read, unread]) expect((await readSource(sourceId)).problem.code).toBe('10-404');
  });

  it('deletes more table-less data sources than one transaction holds, in batches', async () => {
    const id = await connection();
    for (let chunk = 0; chunk < 4; chunk += 1) await Promise.all(Array.from({ length: 15 }, () => source(id)));
    expect(await sourcesNaming(id)).toHaveLength(60);
    expect((await removeConnection(id)).status).toBe(204);
    expect(await sourcesNaming(id)).toHaveLength(0);
    expect((await api.call('getConnection', { params: { connection_id: id } })).status).toBe(404);
  });

  it('deletes none of many data sources while one of them is read by a table', async () => {
    const id = await connection();
    await Promise.all(Array.from({ length: 55 }, () => source(id)));
    const [first] = await sourcesNaming(id);
    await createTable(api, first!.id);
    expect((await removeConnection(id)).problem.code).toBe('30-1507');
    expect(await sourcesNaming(id)).toHaveLength(55);
  });
});

describe('races', () => {
  it('lets exactly one side win when tables are created while the connection is deleted', async () => {
    for (let round = 0; round < 6; round += 1) {
      const id = await connection();
      const sourceId = await source(id);
      const [deletion, ...creates] = await Promise.all([
        removeConnection(id),
        ...Array.from({ length: 3 }, () => createTableOn(sourceId)),
      ]);
      const created = creates.filter((response) => response.status === 201);
      for (const refused of creates.filter((response) => response.status !== 201))
        expect(refused.problem.code).toBe('10-404');
      if (deletion.status === 204) {
        expect(created).toHaveLength(0);
        expect((await readSource(sourceId)).problem.code).toBe('10-404');
      } else {
        expect(deletion.problem.code).toBe('30-1507');
        expect(created.length).toBeGreaterThan(0);
        expect([await tablesOf(id), await tablesOfSource(sourceId)]).toEqual([created.length, created.length]);
      }
      // Either way no table reads a data source or connection that is gone.
      const tables = (await api.call('listDataTables', { query: { limit: 100 } })).body.items.filter(
        (table) => table.data_source_id === sourceId,
      );
      expect(tables).toHaveLength(created.length);
    }
  });

  it('keeps the count right when tables are deleted while the connection is deleted', async () => {
    const id = await connection();
    const sourceId = await source(id);
    const tables = await Promise.all([1, 2, 3].map(() => createTable(api, sourceId)));
    const [deletion, ...removals] = await Promise.all([removeConnection(id), ...tables.map(removeTable)]);
    expect(removals.every((response) => response.status === 204)).toBe(true);
    if (deletion.status !== 204) {
      expect(deletion.problem.code).toBe('30-1507');
      expect(await tablesOf(id)).toBe(0);
      expect((await removeConnection(id)).status).toBe(204);
    }
    expect((await readSource(sourceId)).problem.code).toBe('10-404');
  });

  it('carries the count when tables are created while their data source moves to another connection', async () => {
    for (let round = 0; round < 4; round += 1) {
      const [from, to] = [await connection(), await connection()];
      const sourceId = await source(from);
      await createTable(api, sourceId);
      const [move, ...creates] = await Promise.all([
        moveSource(sourceId, to),
        ...Array.from({ length: 3 }, () => createTableOn(sourceId)),
      ]);
      for (const refused of [move, ...creates].filter((response) => response.status >= 300))
        expect(refused.problem.code).toBe('10-1006');
      const tables = 1 + creates.filter((response) => response.status === 201).length;
      const [owner, left] = move.status === 200 ? [to, from] : [from, to];
      expect([await tablesOfSource(sourceId), await tablesOf(owner), await tablesOf(left)]).toEqual([
        tables,
        tables,
        0,
      ]);
    }
  });
});

describe('moves', () => {
  it('moves the tables of a data source with it, and a table moved to a data source of another connection', async () => {
    const [a, b, c] = [await connection(), await connection(), await connection()];
    const sourceId = await source(a);
    const [first, second] = [await createTable(api, sourceId), await createTable(api, sourceId)];
    const moved = await moveSource(sourceId, b);
    expect(moved.status, moved.text).toBe(200);
    expect([await tablesOf(a), await tablesOf(b)]).toEqual([0, 2]);
    expect((await removeConnection(a)).status).toBe(204);
    expect((await removeConnection(b)).problem.code).toBe('30-1507');

    const elsewhere = await source(c);
    const table = (await api.call('getDataTable', { params: { data_table_id: first } })).body;
    const retargeted = await api.call('updateDataTable', {
      params: { data_table_id: first },
      body: asBody('updateDataTable', { ...table, data_source_id: elsewhere }),
    });
    expect(retargeted.status, retargeted.text).toBe(200);
    expect([
      await tablesOf(b),
      await tablesOf(c),
      await tablesOfSource(sourceId),
      await tablesOfSource(elsewhere),
    ]).toEqual([1, 1, 1, 1]);
    expect((await removeTable(second)).status).toBe(204);
    expect((await removeConnection(b)).status).toBe(204);
    expect((await removeConnection(c)).problem.code).toBe('30-1507');
  });
});

describe('connections stored before the table counter', () => {
  const setCounter = (id: number, value: number | undefined) =>
    dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.entity(TENANT, 'CONNECTION', id),
        UpdateExpression: value === undefined ? 'REMOVE ref_tables' : 'SET ref_tables = :value',
        ...(value === undefined ? {} : { ExpressionAttributeValues: { ':value': value } }),
      }),
    );

  it('are recounted by the backfill from their data sources, whatever they held', async () => {
    const [used, unused, wrong] = [await connection(), await connection(), await connection()];
    const usedSource = await source(used);
    const tables = [await createTable(api, usedSource), await createTable(api, usedSource)];
    await source(unused);
    await Promise.all([setCounter(used, undefined), setCounter(unused, undefined), setCounter(wrong, 3)]);
    // Even without the counter, a connection a table reads is not deleted: its data source says so.
    expect((await removeConnection(used)).problem.code).toBe('30-1507');

    const report = await backfillConnectionTables();
    expect(report.skipped).toEqual([]);
    expect(report.corrected).toEqual(
      expect.arrayContaining([
        `${TENANT}/${used}: absent -> 2`,
        `${TENANT}/${unused}: absent -> 0`,
        `${TENANT}/${wrong}: 3 -> 0`,
      ]),
    );
    expect([await tablesOf(used), await tablesOf(unused), await tablesOf(wrong)]).toEqual([2, 0, 0]);
    expect((await backfillConnectionTables()).corrected.filter((line) => line.startsWith(`${TENANT}/`))).toEqual([]);
    for (const table of tables) expect((await removeTable(table)).status).toBe(204);
    expect((await removeConnection(used)).status).toBe(204);
  });

  it('are recounted by npm run backfill-connection-tables against the stage table', async () => {
    const id = await connection();
    await createTable(api, await source(id));
    await setCounter(id, undefined);
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/scripts/backfill-connection-tables.ts'], {
      env: process.env,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    expect(JSON.parse(output)).toMatchObject({
      corrected: expect.arrayContaining([`${TENANT}/${id}: absent -> 1`]),
      skipped: [],
    });
    expect(await tablesOf(id)).toBe(1);
  });
});
