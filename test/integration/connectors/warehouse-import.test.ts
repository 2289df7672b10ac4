/**
 * Importing rdbms data sources end to end over HTTP: warehouse connection → data source (one
 * read-only query) → data table → import through the job → preview. The query runs on the
 * Snowflake fake asynchronously (asyncExec, status polls), and its result comes back as the
 * first rows inline and the rest in chunks, streamed into the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asBody, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createTable, importAndWait } from '../../support/imports';
import {
  EVENT_COUNT,
  LOADER,
  ORDERS_PREVIEW,
  oauthConnection,
  passwordConnection,
  startWarehouseWorld,
  type WarehouseWorld,
} from './warehouse-fixtures';

let world: WarehouseWorld;
let env: TestTwin;
let api: ApiClient;
let loaderConnection: number;

beforeAll(async () => {
  // Each asynchronous query reads as RUNNING for two polls before it is done.
  world = await startWarehouseWorld({ runningPolls: 2 });
  env = await startTestTwin({ allowOutbound: world.allowOutbound, retryIntervalMs: 10 });
  api = env.admin;
  loaderConnection = await connect({
    name: 'loader',
    ...passwordConnection(world, LOADER, { warehouse: 'COMPUTE_WH' }),
  });
});

afterAll(async () => {
  await env?.close();
  await world?.close();
});

let sequence = 0;

async function connect(body: Record<string, unknown>): Promise<number> {
  const created = await api.call('createConnection', { body: asBody('createConnection', body) });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function tableOver(connectionId: number, query: string, warehouse?: string): Promise<number> {
  const source = await api.call('createDataSource', {
    body: {
      name: `query ${(sequence += 1)}`,
      type: 'rdbms',
      connection_id: connectionId,
      query,
      ...(warehouse ? { warehouse } : {}),
    },
  });
  expect(source.status, source.text).toBe(201);
  return createTable(api, source.body.id);
}

const preview = (tableId: number, versionNumber: number) =>
  api.call('previewDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } });

describe('importing from a warehouse', () => {
  it('runs the query asynchronously and imports its rows, types and nulls as Snowflake gave them', async () => {
    const before = world.snowflake.requests.length;
    const tableId = await tableOver(loaderConnection, 'SELECT * FROM ORDERS');
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({
      status: 'COMPLETED',
      progress: { stage: 'DONE', percent: 100, rows: 3 },
    });
    expect(version.metadata).toMatchObject({ row_count: 3, column_count: 7, source_files: 1 });
    expect(version.metadata?.columns.map((column) => [column.name, column.type])).toEqual([
      ['ID', 'BIGINT'],
      ['CUSTOMER', 'VARCHAR'],
      ['AMOUNT', 'DOUBLE'],
      ['ORDERED_ON', 'DATE'],
      ['SHIPPED', 'BOOLEAN'],
      ['NOTE', 'VARCHAR'],
      ['CREATED_AT', 'TIMESTAMP'],
    ]);

    const shown = await preview(tableId, version.version_number);
    expect(shown.status).toBe(200);
    expect([...shown.body.rows].sort((a, b) => Number(a.ID) - Number(b.ID))).toEqual(ORDERS_PREVIEW);

    const calls = world.snowflake.requests.slice(before);
    const submitted = calls.find((call) => call.path === '/queries/v1/query-request');
    expect(submitted?.body).toMatchObject({
      sqlText: 'SELECT * FROM ORDERS',
      asyncExec: true,
      parameters: { MULTI_STATEMENT_COUNT: 1 },
    });
    expect(calls.filter((call) => call.path.startsWith('/monitoring/queries/')).length).toBeGreaterThanOrEqual(3);
    expect(calls.at(-1)?.path).toBe('/session');
    expect(world.snowflake.openSessions()).toBe(0);
  });

  it('streams a large result in chunks into the engine', async () => {
    const chunks = world.snowflake.chunksServed();
    const tableId = await tableOver(loaderConnection, 'SELECT SEQ, KIND FROM SALES.PUBLIC.EVENTS');
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    expect(version.metadata?.row_count).toBe(EVENT_COUNT);
    // 100 rows came with the result, the other 2400 in three chunks of at most 1000.
    expect(world.snowflake.chunksServed() - chunks).toBe(3);
    const rows = (await preview(tableId, version.version_number)).body.rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(row).toEqual({ SEQ: row.SEQ, KIND: (Number(row.SEQ) - 1) % 3 === 0 ? 'click' : 'view' });
  });

  it('imports through an OAuth connection and the data source’s own warehouse', async () => {
    const connectionId = await connect({ name: 'oauth', ...oauthConnection(world) });
    const before = world.snowflake.requests.length;
    const tableId = await tableOver(connectionId, 'SELECT ID, CUSTOMER FROM ORDERS', 'REPORTING_WH');
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    expect(version.metadata?.row_count).toBe(3);
    const login = world.snowflake.requests.slice(before).find((call) => call.path === '/session/v1/login-request');
    expect(login?.query).toMatchObject({ warehouse: 'REPORTING_WH' });
  });

  it('fails with 30-1010 naming a table that is gone, and keeps nothing', async () => {
    const tableId = await tableOver(loaderConnection, 'SELECT * FROM ORDERS_2023');
    const failed = await importAndWait(api, tableId);
    expect(failed.execution).toMatchObject({
      status: 'FAILED',
      error: { code: '30-1010', message: 'Element SALES.PUBLIC.ORDERS_2023 not found or not accessible' },
    });
    expect((await preview(tableId, failed.version_number)).status).toBe(404);
    expect(world.snowflake.openSessions()).toBe(0);
  });

  it('fails with 30-1013 when the session has no warehouse to run the query on', async () => {
    const connectionId = await connect({
      name: 'no warehouse',
      ...passwordConnection(world, LOADER, { warehouse: 'RETIRED_WH' }),
    });
    const tableId = await tableOver(connectionId, 'SELECT * FROM ORDERS');
    const failed = await importAndWait(api, tableId);
    expect(failed.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1013' } });
  });

  it('fails with 30-1001 when the password was changed since the source was defined', async () => {
    const connectionId = await connect({
      name: 'rotated',
      ...passwordConnection(world, { ...LOADER, password: 'old' }),
    });
    const tableId = await tableOver(connectionId, 'SELECT * FROM ORDERS');
    const failed = await importAndWait(api, tableId);
    expect(failed.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1001' } });
  });
});
