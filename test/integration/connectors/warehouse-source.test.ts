/**
 * Reading rdbms data sources through fetchSource, against the Snowflake fake: the CSV the
 * engine gets for each Snowflake type, and what a stopped job, a silent account and a query
 * that runs too long do to the query and the session.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConnection } from '../../../shared/connectors/configuration';
import type { FetchOptions, FetchProgress } from '../../../shared/connectors/source-types';
import { fetchSource } from '../../../shared/data-sources/fetch';
import type { DataSourceData } from '../../../shared/data-sources/store';
import { AppError } from '../../../shared/errors/app-error';
import { startSnowflakeFake, tableOf, type SnowflakeFake } from '../../fakes/snowflake';

const TYPES = tableOf(
  [
    { name: 'BIG', type: 'fixed', precision: 38, scale: 0 },
    { name: 'RATIO', type: 'real' },
    { name: 'AT_LTZ', type: 'timestamp_ltz', scale: 9 },
    { name: 'AT_TZ', type: 'timestamp_tz', scale: 9 },
    { name: 'AT_TIME', type: 'time', scale: 9 },
    { name: 'DOC', type: 'variant' },
    { name: 'RAW', type: 'binary' },
    { name: 'LABEL', type: 'text' },
  ],
  [
    // TIMESTAMP_TZ carries seconds and the offset's index (1440 + minutes): 1500 is +01:00.
    [
      '12345678901234567890',
      '1.5',
      '1704103200.000000000',
      '1704103200.250000000 1500',
      '36000.000000000',
      '{"a": [1, "x"]}',
      '48656C6C6F',
      'a "quoted", text',
    ],
    [null, null, null, null, null, null, null, null],
  ],
);
const SLOW = tableOf([{ name: 'N', type: 'fixed' }], [['1']]);
const MANY = tableOf(
  [{ name: 'N', type: 'fixed' }],
  Array.from({ length: 50 }, (_, index) => [String(index)]),
);
const common = {
  account: '127',
  users: [{ name: 'loader', password: 'pw', defaultWarehouse: 'WH', defaultDatabase: 'DB', defaultSchema: 'S' }],
  warehouses: ['WH'],
};

let snowflake: SnowflakeFake;
let slow: SnowflakeFake;
const workDirs: string[] = [];
let allowList: string;
const saved = { allowList: process.env.OUTBOUND_ALLOW_LIST, timeout: process.env.CONNECTOR_TIMEOUT_MS };

beforeAll(async () => {
  snowflake = await startSnowflakeFake({ ...common, catalog: { DB: { S: { TYPES } } } });
  // Its queries stay RUNNING for a long time.
  slow = await startSnowflakeFake({ ...common, catalog: { DB: { S: { SLOW } } }, runningPolls: 1_000 });
  process.env.OUTBOUND_ALLOW_LIST = [`127.0.0.1:${snowflake.port}`, `127.0.0.1:${slow.port}`].join(',');
  allowList = process.env.OUTBOUND_ALLOW_LIST;
});

afterEach(() => {
  snowflake.behave('normal');
  process.env.OUTBOUND_ALLOW_LIST = allowList;
  if (saved.timeout === undefined) delete process.env.CONNECTOR_TIMEOUT_MS;
  else process.env.CONNECTOR_TIMEOUT_MS = saved.timeout;
});

afterAll(async () => {
  if (saved.allowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = saved.allowList;
  await Promise.all([snowflake?.close(), slow?.close()]);
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function connection(fake: SnowflakeFake): SourceConnection {
  return {
    type: 'warehouse',
    auth: { auth_type: 'password', username: 'loader', host: fake.url },
    secret: 'pw',
    settings: { warehouse: null, database: null, schema: null },
  };
}

function rdbmsSource(query: string): DataSourceData {
  return {
    name: 'q',
    description: null,
    tags: null,
    connection_id: 1,
    type: 'rdbms',
    path: null,
    query,
    warehouse: null,
    share: null,
    schema: null,
    table: null,
    table_ref: null,
  };
}

function fetchOptions(overrides: Partial<FetchOptions> = {}): FetchOptions & { progress: FetchProgress[] } {
  const workDir = mkdtempSync(join(tmpdir(), 'dps-warehouse-'));
  workDirs.push(workDir);
  const progress: FetchProgress[] = [];
  return {
    workDir,
    onProgress: (update) => progress.push(update),
    signal: new AbortController().signal,
    progress,
    ...overrides,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
}

describe('the CSV a warehouse result becomes', () => {
  it('writes each Snowflake type as CSV: exact numbers, instants with their offsets, text and variants quoted, NULL as an empty field', async () => {
    const options = fetchOptions();
    const fetched = await fetchSource(connection(snowflake), rdbmsSource('SELECT * FROM TYPES'), options);
    expect(fetched.files).toHaveLength(1);
    const [file] = fetched.files;
    const text = readFileSync(file!.localPath, 'utf8');
    expect(file!.bytes).toBe(Buffer.byteLength(text));
    expect(fetched.bytesRead).toBe(file!.bytes);
    expect(text.split('\n')).toEqual([
      '"BIG","RATIO","AT_LTZ","AT_TZ","AT_TIME","DOC","RAW","LABEL"',
      '12345678901234567890,1.5,2024-01-01 10:00:00+00:00,2024-01-01 11:00:00.250000+01:00,10:00:00,"{""a"": [1, ""x""]}","48656C6C6F","a ""quoted"", text"',
      ',,,,,,,',
      '',
    ]);
    expect(options.progress.at(-1)).toEqual({ bytesRead: file!.bytes, filesDone: 1, filesTotal: 1 });
  });
});

describe('stopping and bounding a warehouse read', () => {
  it('cancels the running query on Snowflake and logs out when the job is stopped', async () => {
    const controller = new AbortController();
    const reason = new AppError('10-444');
    const options = fetchOptions({ signal: controller.signal });
    const pending = fetchSource(connection(slow), rdbmsSource('SELECT * FROM SLOW'), options);
    // Wait until the query runs and an answered status poll told the job the warehouse is alive
    // (a poll only sent, not yet answered, reports nothing).
    const waitUntil = Date.now() + 10_000;
    while (
      !slow.requests.some((call) => call.path.startsWith('/monitoring/queries/')) ||
      options.progress.length === 0
    ) {
      if (Date.now() > waitUntil) throw new Error('no answered status poll reported progress within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort(reason);
    expect(await failureOf(pending)).toBe(reason);
    expect(slow.aborted).toHaveLength(1);
    expect(slow.openSessions()).toBe(0);
  });

  it('30-1005 when the account stops answering after the login', async () => {
    snowflake.behave('hang-queries');
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const started = Date.now();
    const error = await failureOf(
      fetchSource(connection(snowflake), rdbmsSource('SELECT * FROM TYPES'), fetchOptions()),
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('30-1005');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('30-1130 when Snowflake hands out a result chunk at an address the guard refuses', async () => {
    // A host that is not the account could send the service to its own network (instance metadata).
    const rogue = await startSnowflakeFake({
      ...common,
      catalog: { DB: { S: { TYPES: MANY } } },
      inlineRows: 10,
      chunkRows: 100,
      chunkHost: '169.254.169.254',
    });
    process.env.OUTBOUND_ALLOW_LIST = `${process.env.OUTBOUND_ALLOW_LIST},127.0.0.1:${rogue.port}`;
    try {
      const error = await failureOf(fetchSource(connection(rogue), rdbmsSource('SELECT * FROM TYPES'), fetchOptions()));
      expect(error).toMatchObject({ code: '30-1130', extraDetails: { host: '169.254.169.254' } });
      expect(rogue.chunksServed()).toBe(0);
      expect(rogue.openSessions()).toBe(0);
    } finally {
      await rogue.close();
    }
  });

  it('10-1043 for a data source that is not an rdbms query', async () => {
    const bucket = { ...rdbmsSource('x'), type: 'bucket' as const, path: 'b/', query: null };
    expect(await failureOf(fetchSource(connection(snowflake), bucket, fetchOptions()))).toMatchObject({
      code: '10-1043',
    });
  });
});
