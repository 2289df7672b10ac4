/**
 * Importing analytics_db data sources end to end over HTTP: connection → data source
 * (table_ref) → data table → import through the job → preview. The real BigQuery SDK reads the
 * fake's tables.get and tabledata.list pages; the rows are loaded with the types the table's
 * schema declares. Each failure comes from a real answer of the fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigQueryFake, type FakeTable } from '../../fakes/bigquery';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createTable, importAndWait } from '../../support/imports';

const PROJECT = 'acme-analytics';
const EVENT_COUNT = 2_500;

/** Every kind of column, with NULLs, an INT64 beyond 2^53, NaN, nested and repeated values. */
const ORDERS: FakeTable = {
  schema: [
    { name: 'id', type: 'INTEGER', mode: 'REQUIRED' },
    { name: 'customer', type: 'STRING' },
    { name: 'amount', type: 'NUMERIC' },
    { name: 'discount', type: 'BIGNUMERIC', precision: '10', scale: '2' },
    { name: 'ratio', type: 'FLOAT' },
    { name: 'paid', type: 'BOOLEAN' },
    { name: 'ordered_on', type: 'DATE' },
    { name: 'created_at', type: 'TIMESTAMP' },
    { name: 'shipped_at', type: 'DATETIME' },
    { name: 'slot', type: 'TIME' },
    { name: 'payload', type: 'BYTES' },
    { name: 'tags', type: 'STRING', mode: 'REPEATED' },
    {
      name: 'address',
      type: 'RECORD',
      fields: [
        { name: 'city', type: 'STRING' },
        { name: 'zip', type: 'INTEGER' },
      ],
    },
  ],
  rows: [
    {
      id: '1',
      customer: 'acme',
      amount: '12.5',
      discount: '0.25',
      ratio: '0.5',
      paid: 'true',
      ordered_on: '2024-01-01',
      created_at: '1704103200123456',
      shipped_at: '2024-01-02T08:30:00.5',
      slot: '10:30:00',
      payload: Buffer.from('hi').toString('base64'),
      tags: ['new', 'vip'],
      address: { city: 'Paris', zip: '75001' },
    },
    {
      id: '9007199254740993',
      customer: '',
      amount: '-0.000000001',
      ratio: 'NaN',
      paid: 'false',
      tags: [],
      address: { city: null, zip: null },
    },
    { id: '3' },
  ],
};

const ORDERS_PREVIEW = [
  {
    id: 1,
    customer: 'acme',
    amount: '12.500000000',
    discount: '0.25',
    ratio: 0.5,
    paid: true,
    ordered_on: '2024-01-01',
    created_at: '2024-01-01T10:00:00.123456Z',
    shipped_at: '2024-01-02T08:30:00.5',
    slot: '10:30:00',
    payload: 'hi',
    tags: '[new, vip]',
    address: "{'city': Paris, 'zip': 75001}",
  },
  {
    id: '9007199254740993',
    customer: '',
    amount: '-0.000000001',
    discount: null,
    ratio: 'NaN',
    paid: false,
    ordered_on: null,
    created_at: null,
    shipped_at: null,
    slot: null,
    payload: null,
    tags: '[]',
    address: "{'city': NULL, 'zip': NULL}",
  },
  {
    id: 3,
    customer: null,
    amount: null,
    discount: null,
    ratio: null,
    paid: null,
    ordered_on: null,
    created_at: null,
    shipped_at: null,
    slot: null,
    payload: null,
    tags: null,
    address: null,
  },
];

let bigquery: BigQueryFake;
let env: TestTwin;
let api: ApiClient;
let loader: { readonly email: string; readonly keyJson: string };
/** Reads the dataset's metadata and the tables of `private`, and may run no query job. */
let catalog: { readonly email: string; readonly keyJson: string };
let salesConnection: number;
let sequence = 0;

beforeAll(async () => {
  bigquery = await BigQueryFake.start();
  bigquery.pageRows = 1000;
  loader = bigquery.auth.addServiceAccount({ project: PROJECT });
  catalog = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'catalog' });
  bigquery.addDataset(PROJECT, 'sales', [loader.email, catalog.email]);
  bigquery.jobs.allowJobs(PROJECT, loader.email);
  bigquery.jobs.pageRows = 2;
  bigquery.addTable(PROJECT, 'sales', 'orders', ORDERS);
  bigquery.addTable(PROJECT, 'sales', 'events', {
    schema: [
      { name: 'seq', type: 'INTEGER' },
      { name: 'kind', type: 'STRING' },
    ],
    rows: Array.from({ length: EVENT_COUNT }, (_, index) => ({
      seq: String(index + 1),
      kind: index % 3 === 0 ? 'click' : 'view',
    })),
  });
  bigquery.addTable(PROJECT, 'sales', 'empty', { schema: [{ name: 'id', type: 'INTEGER' }], rows: [] });
  bigquery.addTable(PROJECT, 'sales', 'ledger', {
    schema: [{ name: 'total', type: 'BIGNUMERIC' }],
    rows: [{ total: '1' }],
  });
  bigquery.addTable(PROJECT, 'sales', 'private', {
    schema: [{ name: 'id', type: 'INTEGER' }],
    rows: [{ id: '1' }],
    dataReaders: new Set([catalog.email]),
  });
  bigquery.addTable(PROJECT, 'sales', 'daily', {
    type: 'VIEW',
    schema: [
      { name: 'day', type: 'DATE' },
      { name: 'total', type: 'NUMERIC', precision: '12', scale: '2' },
    ],
    rows: [
      { day: '2024-01-01', total: '112.5' },
      { day: '2024-01-02', total: '7.05' },
      { day: '2024-01-03', total: null },
    ],
  });
  bigquery.addTable(PROJECT, 'sales', 'stale', {
    type: 'VIEW',
    schema: [{ name: 'id', type: 'INTEGER' }],
    rows: [],
    queryError: {
      reason: 'invalidQuery',
      message: 'Not found: Table acme-analytics:sales.orders_2019 was not found in location US',
    },
  });
  env = await startTestTwin({
    allowOutbound: [bigquery.allowOutbound],
    environment: { ...bigquery.environment, CONNECTOR_TIMEOUT_MS: '2000' },
    retryIntervalMs: 10,
  });
  api = env.admin;
  salesConnection = await connect(loader.keyJson, 'sales');
});

afterAll(async () => {
  await env?.close();
  await bigquery?.close();
});

async function connect(keyJson: string, datasetId?: string): Promise<number> {
  const created = await api.call('createConnection', {
    body: {
      name: `bq import ${process.pid}-${(sequence += 1)}`,
      type: 'analytics_db',
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: keyJson },
      ...(datasetId === undefined ? {} : { dataset_id: datasetId }),
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function tableOver(connectionId: number, tableRef: string): Promise<number> {
  const source = await api.call('createDataSource', {
    body: {
      name: `bq source ${(sequence += 1)}`,
      type: 'analytics_db',
      connection_id: connectionId,
      table_ref: tableRef,
    },
  });
  expect(source.status, source.text).toBe(201);
  return createTable(api, source.body.id);
}

const preview = (tableId: number, versionNumber: number) =>
  api.call('previewDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } });
const dataRequests = (from: number) => bigquery.requests.slice(from).filter((path) => path.endsWith('/data'));

async function expectFailure(tableId: number, code: string) {
  const failed = await importAndWait(api, tableId);
  expect(failed.execution.status, JSON.stringify(failed.execution)).toBe('FAILED');
  expect(failed.execution.error?.code).toBe(code);
  expect((await preview(tableId, failed.version_number)).status).toBe(404);
  return failed.execution.error;
}

describe('importing from an analytics database', () => {
  it('reads the table’s schema and rows and imports them with BigQuery’s types and NULLs', async () => {
    const before = bigquery.requests.length;
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.orders`);
    const version = await importAndWait(api, tableId);
    expect(version.execution, JSON.stringify(version.execution.error)).toMatchObject({
      status: 'COMPLETED',
      progress: { stage: 'DONE', percent: 100, rows: 3 },
    });
    expect(version.metadata).toMatchObject({ row_count: 3, column_count: 13, source_files: 1 });
    expect(version.metadata?.columns.map((column) => [column.name, column.type])).toEqual([
      ['id', 'BIGINT'],
      ['customer', 'VARCHAR'],
      ['amount', 'DECIMAL(38,9)'],
      ['discount', 'DECIMAL(10,2)'],
      ['ratio', 'DOUBLE'],
      ['paid', 'BOOLEAN'],
      ['ordered_on', 'DATE'],
      ['created_at', 'TIMESTAMP WITH TIME ZONE'],
      ['shipped_at', 'TIMESTAMP'],
      ['slot', 'TIME'],
      ['payload', 'BLOB'],
      ['tags', 'VARCHAR[]'],
      ['address', 'STRUCT(city VARCHAR, zip BIGINT)'],
    ]);
    const shown = await preview(tableId, version.version_number);
    expect(shown.status).toBe(200);
    expect(shown.body.rows).toEqual(ORDERS_PREVIEW);
    expect(bigquery.requests.slice(before)).toEqual([
      `/bigquery/v2/projects/${PROJECT}/datasets/sales/tables/orders`,
      `/bigquery/v2/projects/${PROJECT}/datasets/sales/tables/orders/data`,
    ]);
  });

  it('follows pageToken through every page of a large table', async () => {
    const before = bigquery.requests.length;
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.events`);
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    expect(version.metadata?.row_count).toBe(EVENT_COUNT);
    // The fake ends a page at 1000 rows whatever maxResults asks, as BigQuery does at 10 MB.
    expect(dataRequests(before)).toHaveLength(3);
    const rows = (await preview(tableId, version.version_number)).body.rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(row).toEqual({ seq: row.seq, kind: (Number(row.seq) - 1) % 3 === 0 ? 'click' : 'view' });
  });

  it('retries a rate-limited page as a transient failure and completes', async () => {
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.events`);
    bigquery.inject('rateLimit', /\/tables\/events\/data$/, 1, 1);
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    expect(version.metadata?.row_count).toBe(EVENT_COUNT);
  });

  it('fails with 30-1425 for a table that is not there and 30-1414 for a dataset that is not', async () => {
    const missingTable = await expectFailure(
      await tableOver(salesConnection, `${PROJECT}.sales.orders_2023`),
      '30-1425',
    );
    expect(missingTable?.message).toBe(`Table ${PROJECT}.sales.orders_2023 not found in the connection`);
    const anyDataset = await connect(loader.keyJson);
    const missingDataset = await expectFailure(await tableOver(anyDataset, `${PROJECT}.archive.orders`), '30-1414');
    expect(missingDataset?.message).toBe('Dataset archive does not exist or is not accessible');
  });

  it('fails with 30-1423 when the account may not read the table’s rows', async () => {
    await expectFailure(await tableOver(salesConnection, `${PROJECT}.sales.private`), '30-1423');
  });

  it('fails with 30-1418 when the table goes away between two pages', async () => {
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.events`);
    bigquery.inject('gone', /\/tables\/events\/data$/, 1, 1);
    await expectFailure(tableId, '30-1418');
  });

  it('fails with 30-1427 before reading a row of a BIGNUMERIC wider than 38 digits', async () => {
    const before = bigquery.requests.length;
    const error = await expectFailure(await tableOver(salesConnection, `${PROJECT}.sales.ledger`), '30-1427');
    expect(error?.cause).toBe('column total is BIGNUMERIC(76.76); DuckDB decimals hold at most 38 digits');
    expect(dataRequests(before)).toEqual([]);
  });

  it('reads a view through a query job, polled until done, and pages its result', async () => {
    const before = bigquery.requests.length;
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.daily`);
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    expect(version.metadata?.columns.map((column) => [column.name, column.type])).toEqual([
      ['day', 'DATE'],
      ['total', 'DECIMAL(12,2)'],
    ]);
    expect((await preview(tableId, version.version_number)).body.rows).toEqual([
      { day: '2024-01-01', total: '112.50' },
      { day: '2024-01-02', total: '7.05' },
      { day: '2024-01-03', total: null },
    ]);
    const calls = bigquery.requests.slice(before).map((path) => path.replace(/(jobs|queries)\/[^/]+$/, '$1/{id}'));
    const jobs = `/bigquery/v2/projects/${PROJECT}`;
    // The job reads as RUNNING once, then DONE; its 3 rows come in pages of 2.
    expect(calls).toEqual([
      `${jobs}/datasets/sales/tables/daily`,
      `${jobs}/jobs`,
      `${jobs}/jobs/{id}`,
      `${jobs}/jobs/{id}`,
      `${jobs}/queries/{id}`,
      `${jobs}/queries/{id}`,
    ]);
  });

  it('fails with 30-1424 for a view whose query no longer compiles, and 30-1426 for an account that may not run it', async () => {
    const cancelled = bigquery.jobs.cancelledJobs;
    await expectFailure(await tableOver(salesConnection, `${PROJECT}.sales.stale`), '30-1424');
    const denied = await expectFailure(
      await tableOver(await connect(catalog.keyJson, 'sales'), `${PROJECT}.sales.daily`),
      '30-1426',
    );
    expect(denied?.message).toBe('View access denied: write permission required on the materialization dataset');
    // A job that ended on its own is not cancelled.
    expect(bigquery.jobs.cancelledJobs).toBe(cancelled);
  });

  it('fails with 10-1005 for an empty table', async () => {
    await expectFailure(await tableOver(salesConnection, `${PROJECT}.sales.empty`), '10-1005');
  });

  it('fails with 30-1416 when the key was revoked since the source was defined', async () => {
    const retired = bigquery.auth.addServiceAccount({ project: PROJECT, name: 'retired' });
    bigquery.addDataset(PROJECT, 'retired_sales', [retired.email]);
    const tableId = await tableOver(await connect(retired.keyJson, 'retired_sales'), `${PROJECT}.retired_sales.orders`);
    bigquery.auth.disable(retired.email);
    await expectFailure(tableId, '30-1416');
  });

  it('fails with 30-1413, after the job’s retries, while BigQuery keeps failing', async () => {
    const tableId = await tableOver(salesConnection, `${PROJECT}.sales.orders`);
    bigquery.inject('unavailable', /\/tables\/orders$/, 20);
    const error = await expectFailure(tableId, '30-1413');
    expect(error?.message).toBe('Connection error; verify the connection properties');
  });
});
