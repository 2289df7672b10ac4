/**
 * Imports of `delta sharing` data sources over HTTP against the Delta Sharing fake: the
 * preview equals what DuckDB reads from the same Parquet files with each file's partition
 * values; the table version read is recorded; a 100-file table downloads with bounded
 * concurrency; URLs that expire mid-import are replaced by a fresh query of the same version;
 * tables the import cannot read fail with a code, never with wrong rows.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startDeltaSharingFake,
  type DeltaSharingFake,
  type FakeTableSpec,
} from '../../../infra/local/fakes/delta-sharing';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createTable, importAndWait } from '../../support/imports';
import { DELTA_TABLES } from './delta-sharing-fixtures';

const TOKEN = 'importer-token';
const BULK_FILES = 100;
const BULK: FakeTableSpec = {
  share: 'partner',
  schema: 'bulk',
  name: 'events',
  fields: [{ name: 'n', type: 'long' }],
  versions: [
    Array.from({ length: BULK_FILES }, (_, file) => ({
      sql: `SELECT i::BIGINT AS n FROM range(${file * 10}, ${file * 10 + 10}) t(i)`,
    })),
  ],
};

let fake: DeltaSharingFake;
/** A server whose URLs live one second and whose file actions do not say so. */
let shortLived: DeltaSharingFake;
let env: TestTwin;
let api: ApiClient;
let sequence = 0;

beforeAll(async () => {
  [fake, shortLived] = await Promise.all([
    startDeltaSharingFake({ tables: [...DELTA_TABLES, BULK], downloadDelayMs: 20 }),
    startDeltaSharingFake({ tables: [BULK], urlLifetimeMs: 1_000, advertiseExpiry: false, downloadDelayMs: 50 }),
  ]);
  fake.addToken(TOKEN);
  shortLived.addToken(TOKEN);
  env = await startTestTwin({ allowOutbound: [`127.0.0.1:${fake.port}`, `127.0.0.1:${shortLived.port}`] });
  api = env.admin;
  const on = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'delta_sharing', tenant_id: env.admin.tenantId! },
    body: { strategy: 'on' },
  });
  expect(on.status, on.text).toBe(200);
});

afterAll(async () => {
  await env?.close();
  await Promise.all([fake?.close(), shortLived?.close()]);
});

type Pin = { readonly table_version?: number; readonly table_timestamp?: string };

async function tableOver(
  server: DeltaSharingFake,
  share: string,
  schema: string,
  table: string,
  pin: Pin = {},
): Promise<number> {
  const connection = await api.call('createConnection', {
    body: {
      name: `sharing import ${process.pid}-${(sequence += 1)}`,
      type: 'delta_sharing',
      auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: server.profile(TOKEN) },
    },
  });
  expect(connection.status, connection.text).toBe(201);
  const source = await api.call('createDataSource', {
    body: {
      name: `shared ${sequence}`,
      type: 'delta sharing',
      connection_id: connection.body.id,
      share,
      schema,
      table,
      ...pin,
    },
  });
  expect(source.status, source.text).toBe(201);
  return createTable(api, source.body.id);
}

const preview = (tableId: number, versionNumber: number) =>
  api.call('previewDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } });

/** (id, region, order_date) of every row DuckDB reads from the fake's files of `version`, partition values added. */
async function ordersAsDuckDbReadsThem(version: number): Promise<[number, string | null, string][]> {
  const orders = fake.tables.find((table) => table.name === 'orders')!;
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const rows: [number, string | null, string][] = [];
    for (const file of orders.written[version]!.files) {
      const reader = await connection.runAndReadAll(`SELECT id FROM read_parquet('${file.localPath}')`);
      for (const [id] of reader.getRows())
        rows.push([Number(id), file.partitionValues.region || null, file.partitionValues.order_date!]);
    }
    return rows.sort((a, b) => a[0] - b[0]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('importing a shared table', () => {
  it('imports the latest version with its partition columns, typed, and records the table version', async () => {
    const tableId = await tableOver(fake, 'partner', 'retail', 'orders');
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution.error)).toMatchObject({ status: 'COMPLETED' });
    expect(version.metadata).toMatchObject({ row_count: 6, column_count: 5, source_files: 3, source_version: 1 });
    expect(version.metadata?.columns.map((column) => [column.name, column.type])).toEqual([
      ['id', 'BIGINT'],
      ['amount', 'DECIMAL(10,2)'],
      ['placed_at', 'TIMESTAMP WITH TIME ZONE'],
      ['region', 'VARCHAR'],
      ['order_date', 'DATE'],
    ]);
    const shown = await preview(tableId, version.version_number);
    expect(shown.status, shown.text).toBe(200);
    const rows = shown.body.rows as Record<string, unknown>[];
    expect(rows.map((row) => [row.id, row.region, row.order_date]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      await ordersAsDuckDbReadsThem(1),
    );
    expect(rows.find((row) => row.id === 4)).toEqual({
      id: 4,
      amount: '5.00',
      placed_at: '2024-03-01T08:04:00Z',
      region: 'south',
      order_date: '2024-03-02',
    });
  });

  it('reads the version a data source pins, by number or by timestamp (time travel)', async () => {
    for (const pin of [{ table_version: 0 }, { table_timestamp: '2024-01-01T12:00:00Z' }]) {
      const tableId = await tableOver(fake, 'partner', 'retail', 'orders', pin);
      const version = await importAndWait(api, tableId);
      expect(version.execution, JSON.stringify(version.execution.error)).toMatchObject({ status: 'COMPLETED' });
      expect(version.metadata, JSON.stringify(pin)).toMatchObject({ row_count: 3, source_files: 1, source_version: 0 });
      const rows = (await preview(tableId, version.version_number)).body.rows as Record<string, unknown>[];
      expect(rows.map((row) => [row.id, row.region, row.order_date])).toEqual(await ordersAsDuckDbReadsThem(0));
    }
  });

  it('fails an import pinned to a version the table does not have with 30-3012', async () => {
    const tableId = await tableOver(fake, 'partner', 'retail', 'orders', { table_version: 9 });
    const version = await importAndWait(api, tableId);
    expect(version.execution.status).toBe('FAILED');
    expect(version.execution.error).toMatchObject({
      code: '30-3012',
      message: expect.stringContaining('partner.retail.orders version 9'),
    });
    const answered = fake.requests.filter((request) => request.path.endsWith('/query')).at(-1);
    expect(answered?.body).toMatchObject({ version: 9 });
  });

  it('refuses a data source that pins both a version and a timestamp', async () => {
    const connection = await api.call('createConnection', {
      body: {
        name: `sharing both ${process.pid}`,
        type: 'delta_sharing',
        auth: { auth_type: 'delta_sharing_profile', delta_sharing_profile_content: fake.profile(TOKEN) },
      },
    });
    const source = await api.call('createDataSource', {
      body: {
        name: 'both pins',
        type: 'delta_sharing',
        connection_id: connection.body.id,
        share: 'partner',
        schema: 'retail',
        table: 'orders',
        table_version: 0,
        table_timestamp: '2024-01-01T12:00:00Z',
      },
    });
    expect(source.status, source.text).toBe(400);
    expect(source.problem).toMatchObject({ code: '10-1400', extraDetails: { table_timestamp: expect.any(String) } });
  });

  it(`downloads a ${BULK_FILES}-file table with bounded concurrency`, async () => {
    const tableId = await tableOver(fake, 'partner', 'bulk', 'events');
    const before = fake.downloads.length;
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution.error)).toMatchObject({ status: 'COMPLETED' });
    expect(version.metadata).toMatchObject({ row_count: BULK_FILES * 10, source_files: BULK_FILES, source_version: 0 });
    expect(fake.downloads.length - before).toBe(BULK_FILES);
    expect(fake.peakConcurrentDownloads).toBeGreaterThan(1);
    expect(fake.peakConcurrentDownloads).toBeLessThanOrEqual(4);
  });

  it('replaces URLs that expire mid-import with a fresh query of the same version', async () => {
    const tableId = await tableOver(shortLived, 'partner', 'bulk', 'events');
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution.error)).toMatchObject({ status: 'COMPLETED' });
    expect(version.metadata).toMatchObject({ row_count: BULK_FILES * 10, source_files: BULK_FILES });
    const queries = shortLived.requests.filter((call) => call.path.endsWith('/query'));
    expect(queries.length).toBeGreaterThan(1);
    expect(queries.slice(1).map((call) => call.body)).toEqual(queries.slice(1).map(() => ({ version: 0 })));
    expect(shortLived.downloads.filter((download) => download.status !== 200).length).toBeGreaterThan(0);
  });

  it('fails with 10-1000, not with wrong rows, for a table with deletion vectors', async () => {
    const failed = await importAndWait(api, await tableOver(fake, 'partner', 'retail', 'returns'));
    expect(failed.execution.status).toBe('FAILED');
    expect(failed.execution.error?.code).toBe('10-1000');
  });

  it('fails with 30-3012 for a table the server does not have', async () => {
    const failed = await importAndWait(api, await tableOver(fake, 'partner', 'retail', 'lost'));
    expect(failed.execution.status).toBe('FAILED');
    expect(failed.execution.error).toMatchObject({ code: '30-3012' });
  });
});
