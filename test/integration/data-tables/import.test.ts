/**
 * The import pipeline end to end over HTTP on the twin: CSV files in s3rver → connection →
 * data source → data table → batch create → the import state machine (statemachines/
 * import.asl.json under the local Step Functions) → the worker with DuckDB → the version's
 * files in the data bucket → preview and sample; then schema analysis SHALLOW and FULL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { connectionCases } from '../../support/connections';
import { startTestTwin, type ApiClient, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection, createTable, importAndWait, putObjects, startImport, waitForJob } from '../../support/imports';

let env: TestTwin;
let api: ApiClient;

const HEADER = 'id,name,amount,day,flag,comment,region';
const row = (id: number) => `${id},name ${id},${(id * 1.5).toFixed(2)},2024-01-${String((id % 28) + 1).padStart(2, '0')},${id % 2 === 0},${id % 10 === 0 ? 'note' : ''},EU`;
const csv = (ids: number[]) => `${HEADER}\n${ids.map(row).join('\n')}\n`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

function expectedRow(id: number) {
  return {
    id,
    name: `name ${id}`,
    amount: Number((id * 1.5).toFixed(2)),
    day: `2024-01-${String((id % 28) + 1).padStart(2, '0')}`,
    flag: id % 2 === 0,
    comment: id % 10 === 0 ? 'note' : null,
    region: 'EU',
  };
}

async function dataBucketKeys(prefix: string): Promise<string[]> {
  const s3 = new S3Client({ endpoint: env.twin.s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS });
  try {
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: prefix }));
    return (listing.Contents ?? []).map((object) => object.Key!.slice(prefix.length)).sort();
  } finally {
    s3.destroy();
  }
}

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10 });
  api = env.admin;
  await putObjects(env, 'landing', {
    'sales/2024-01.csv': csv(range(1, 60)),
    'sales/archive/2024-02.csv': csv(range(61, 100)),
    'sales/readme.txt': 'not a CSV: ignored',
    'empty-folder/readme.txt': 'no CSV here',
    'broken/ragged.csv': `${HEADER}\n1,a,2,2024-01-01,true,,EU\n2,b\n3,"unterminated\n`,
    'binary/data.csv': new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 1, 2, 3, 0, 0, 255, 254]),
    'corrupt/c.csv': Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\n')]),
    'empty/e.csv': '',
    'header-only/h.csv': `${HEADER}\n`,
    'bad-header/h.csv': 'id,"first\nname",amount\n1,a,2\n',
  });
});

afterAll(async () => {
  await env?.close();
});

describe('importing CSV files from an object store', () => {
  let tableId: number;
  let sourceId: number;

  it('imports every CSV under the folder into V1, with progress written back until COMPLETED', async () => {
    const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'landing/' });
    sourceId = await createBucketSource(api, connectionId, 'landing/sales/');
    tableId = await createTable(api, sourceId);

    const started = await api.post('/data-versions/batch-create', { data_table_ids: [tableId] });
    expect(started.status).toBe(202);
    const [result] = started.body.results;
    expect(result).toMatchObject({
      data_table_id: tableId,
      status: 'ACCEPTED',
      data_version: { data_table_id: tableId, version_number: 1, version_display_name: 'V1', metadata: null, expiration_date: null },
      job: { status_url: `/api/data/v1/data-tables/${tableId}/versions/1` },
    });
    expect(['PENDING', 'IN_PROGRESS', 'COMPLETED']).toContain(result.data_version.execution.status);
    expect(result.job.job_id).toBe(result.data_version.execution.job_id);

    const version = await waitForJob(api, `/data-tables/${tableId}/versions/1`);
    expect(version.execution).toMatchObject({ status: 'COMPLETED', progress: { stage: 'DONE', percent: 100, rows: 100 } });
    expect(version.execution.error).toBeUndefined();
    expect(Date.parse(version.execution.ended_date)).toBeGreaterThanOrEqual(Date.parse(version.execution.started_date));
    expect(version.metadata).toMatchObject({ row_count: 100, column_count: 7, source_files: 2 });
    expect(version.metadata.bytes_read).toBe(Buffer.byteLength(csv(range(1, 60))) + Buffer.byteLength(csv(range(61, 100))));
    expect(version.metadata.columns.map((column: { name: string }) => column.name)).toEqual(['id', 'name', 'amount', 'day', 'flag', 'comment', 'region']);

    expect(await dataBucketKeys(`local/tables/${tableId}/v1/`)).toEqual(['data.parquet', 'preview.json', 'sample.jsonl', 'sample.parquet', 'schema.json']);
  });

  it('shows the table with its latest version and connection details', async () => {
    const table = await api.get(`/data-tables/${tableId}`);
    expect(table.status).toBe(200);
    expect(table.body).toMatchObject({
      id: tableId,
      data_source_id: sourceId,
      data_version_exist: true,
      latest_data_version: { version_number: 1, execution: { status: 'COMPLETED' } },
      connection_details: { connection_type: 'object_store', data_source_type: 'bucket' },
    });
  });

  it('previews the first rows, equal to the source rows, with the schema', async () => {
    const preview = await api.get(`/data-tables/${tableId}/versions/1/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.row_count).toBe(100);
    expect(preview.body.rows).toHaveLength(100);
    const rows = [...preview.body.rows].sort((a: { id: number }, b: { id: number }) => a.id - b.id);
    expect(rows).toEqual(range(1, 100).map(expectedRow));
    expect(preview.body.columns.find((column: { name: string }) => column.name === 'flag').type).toBe('BOOLEAN');
  });

  it('pages through the sample', async () => {
    const page = await api.get(`/data-tables/${tableId}/versions/1/sample?offset=95&limit=10`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ offset: 95, limit: 10, total: 100 });
    expect(page.body.rows).toHaveLength(5);
  });

  it('gives V2 on a second import, keeping V1', async () => {
    await putObjects(env, 'landing', { 'sales/2024-03.csv': csv(range(101, 120)) });
    const v2 = await importAndWait(api, tableId);
    expect(v2).toMatchObject({ version_number: 2, version_display_name: 'V2', execution: { status: 'COMPLETED' }, metadata: { row_count: 120 } });
    const versions = await api.get(`/data-tables/${tableId}/versions`);
    expect(versions.body.items.map((item: { version_number: number }) => item.version_number)).toEqual([1, 2]);
    expect((await api.get(`/data-tables/${tableId}`)).body.latest_data_version.version_number).toBe(2);
    expect((await api.get(`/data-tables/${tableId}/versions/1/preview`)).body.row_count).toBe(100);
  });

  it('analyses the schema SHALLOW, then FULL with alerts', async () => {
    const base = `/data-tables/${tableId}/versions/2/schema-analysis`;
    expect((await api.get(base)).body.code).toBe('20-1025');

    const shallow = await api.post(base, { depth: 'SHALLOW' });
    expect(shallow.status).toBe(202);
    expect(shallow.body).toMatchObject({ requested_depth: 'SHALLOW' });
    expect(shallow.body.depth).toBeUndefined();
    const shallowDone = await waitForJob(api, base);
    expect(shallowDone).toMatchObject({ depth: 'SHALLOW', execution: { status: 'COMPLETED' } });

    const result = await api.get(`${base}/result`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ depth: 'SHALLOW', row_count: 120, alerts: [] });
    expect(result.body.columns.find((column: { name: string }) => column.name === 'comment')).toMatchObject({ null_count: 108 });
    expect((await api.get(`${base}/alerts`)).body.code).toBe('20-1062');

    const editor = await env.clientFor('local', ['editor']);
    const refused = await editor.post(base, { depth: 'FULL' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('10-403');

    expect((await api.post(base, { depth: 'FULL' })).status).toBe(202);
    const fullDone = await waitForJob(api, base);
    expect(fullDone).toMatchObject({ depth: 'FULL', requested_depth: 'FULL', execution: { status: 'COMPLETED' } });
    const alerts = await api.get(`${base}/alerts`);
    expect(alerts.status).toBe(200);
    const kinds = alerts.body.alerts.map((alert: { column: string; type: string }) => `${alert.column}:${alert.type}`);
    expect(kinds).toContain('comment:MOSTLY_NULL');
    expect(kinds).toContain('region:CONSTANT');
    expect(kinds.some((kind: string) => kind.startsWith('amount:'))).toBe(false);

    const profile = (await api.get(`${base}/result`)).body.columns.find((column: { name: string }) => column.name === 'id');
    expect(profile).toMatchObject({ min: 1, max: 120, distinct_count: 120, null_count: 0 });
    expect(profile.quantiles.p50).toBeGreaterThan(50);

    const again = await api.post(base, { depth: 'SHALLOW' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('20-1066');
  });
});

describe('imports that fail', () => {
  async function failedImportOf(path: string) {
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, path));
    const version = await importAndWait(api, tableId);
    expect(version.execution.status).toBe('FAILED');
    return { tableId, version };
  }

  it.each([
    ['a folder that does not exist', 'landing/missing/', '30-1114'],
    ['a folder without CSV files', 'landing/empty-folder/', '30-1118'],
    ['a bucket that does not exist', 'nowhere/sales/', '30-1108'],
    ['a file with ragged rows', 'landing/broken/', '10-1002'],
    ['a file that is not text', 'landing/binary/', '10-1000'],
    ['a file that is not valid UTF-8', 'landing/corrupt/', '10-1003'],
    ['an empty file', 'landing/empty/', '10-1005'],
    ['a file with a header and no rows', 'landing/header-only/', '10-1005'],
    ['a header the schema cannot hold', 'landing/bad-header/', '10-1009'],
  ])('%s ends FAILED with %s and leaves no files', async (_, path, code) => {
    const { tableId, version } = await failedImportOf(path);
    expect(version.execution.error).toMatchObject({ code });
    expect(version.execution.error.message).toEqual(expect.any(String));
    expect(version.metadata).toBeNull();
    expect(await dataBucketKeys(`local/tables/${tableId}/`)).toEqual([]);
    const preview = await api.get(`/data-tables/${tableId}/versions/${version.version_number}/preview`);
    expect(preview.status).toBe(404);
    expect(preview.body.code).toBe('20-1040');
    const sample = await api.get(`/data-tables/${tableId}/versions/${version.version_number}/sample`);
    expect(sample.body.code).toBe('20-1059');
  });

  it('a failed import after a good one leaves the good version readable', async () => {
    const connectionId = await createObjectStoreConnection(api, env);
    const sourceId = await createBucketSource(api, connectionId, 'landing/sales/2024-01.csv');
    const tableId = await createTable(api, sourceId);
    expect((await importAndWait(api, tableId)).execution.status).toBe('COMPLETED');

    const source = (await api.get(`/data-sources/${sourceId}`)).body;
    const moved = await api.put(`/data-sources/${sourceId}`, { ...source, path: 'landing/missing/' });
    expect(moved.status, moved.text).toBe(200);
    const failed = await importAndWait(api, tableId);
    expect(failed).toMatchObject({ version_number: 2, execution: { status: 'FAILED', error: { code: '30-1114' } } });

    const v1 = await api.get(`/data-tables/${tableId}/versions/1/preview`);
    expect(v1.status).toBe(200);
    expect(v1.body.row_count).toBe(60);
    expect((await api.get(`/data-tables/${tableId}`)).body.latest_data_version).toMatchObject({ version_number: 2, execution: { status: 'FAILED' } });
  });

  it('a data source whose connector is not built yet ends FAILED with 10-1501', async () => {
    const warehouse = connectionCases(env.twin.s3.endpoint, ' import').find((c) => c.label === 'warehouse/password')!;
    const connection = await api.post('/connections', warehouse.request);
    expect(connection.status, connection.text).toBe(201);
    const source = await api.post('/data-sources', { name: 'orders query', type: 'rdbms', connection_id: connection.body.id, query: 'SELECT * FROM orders' });
    expect(source.status, source.text).toBe(201);
    const tableId = await createTable(api, source.body.id);
    const version = await importAndWait(api, tableId);
    expect(version.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1501' } });
    expect(version.execution.error.message).toContain('connector.warehouse');
  });

  it('refuses schema analysis of a failed version', async () => {
    const { tableId, version } = await failedImportOf('landing/missing/');
    const response = await api.post(`/data-tables/${tableId}/versions/${version.version_number}/schema-analysis`, { depth: 'SHALLOW' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('20-1059');
  });

  it('records the bytes read per tenant', async () => {
    const { GetCommand, DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { keys } = await import('../../../shared/db/keys');
    const { usagePeriod } = await import('../../../shared/usage');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.twin.dynamoEndpoint }));
    const read = async () =>
      Number((await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: keys.usage('local', 'DATA_READ_BYTES', usagePeriod()) }))).Item?.value ?? 0);
    const before = await read();
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/sales/archive/'));
    await importAndWait(api, tableId);
    expect((await read()) - before).toBe(Buffer.byteLength(csv(range(61, 100))));
    client.destroy();
  });
});

describe('schema analysis runs one at a time', () => {
  it('parallel requests start exactly one analysis (20-1065); results wait for a success (20-1027)', async () => {
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/sales/'));
    await importAndWait(api, tableId);
    const base = `/data-tables/${tableId}/versions/1/schema-analysis`;
    const responses = await Promise.all(Array.from({ length: 6 }, () => api.post(base, { depth: 'FULL' })));
    expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 202)) {
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('20-1065');
    }
    const early = await api.get(`${base}/result`);
    if (early.status !== 200) expect(early.body.code).toBe('20-1027');
    expect((await waitForJob(api, base)).depth).toBe('FULL');
    expect((await api.get(`${base}/result`)).status).toBe(200);
  });

  it('a version still being imported cannot be analysed yet (20-1029)', async () => {
    await putObjects(env, 'landing', { 'slow/a.csv': csv(range(1, 3)) });
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/slow/'));
    const versionNumber = await startImport(api, tableId);
    const response = await api.post(`/data-tables/${tableId}/versions/${versionNumber}/schema-analysis`, { depth: 'SHALLOW' });
    // The import may already have finished on a fast machine; otherwise the refusal is 20-1029.
    if (response.status !== 202) expect(response.body).toMatchObject({ status: 400, code: '20-1029' });
    await waitForJob(api, `/data-tables/${tableId}/versions/${versionNumber}`);
  });
});

describe('csv-spectrum through the whole pipeline', () => {
  const spectrum = join(dirname(createRequire(import.meta.url).resolve('csv-spectrum/package.json')), 'csvs');
  const cases = readdirSync(spectrum).filter((file) => file.endsWith('.csv'));

  it.each(cases)('%s imports with its expected values', async (file) => {
    const name = file.replace(/\.csv$/, '');
    await putObjects(env, 'landing', { [`spectrum/${name}/${file}`]: readFileSync(join(spectrum, file)) });
    const parsed = JSON.parse(readFileSync(join(spectrum, '..', 'json', `${name}.json`), 'utf8')) as Record<string, string> | Record<string, string>[];
    const expected = Array.isArray(parsed) ? parsed : [parsed];
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, `landing/spectrum/${name}/`));
    const version = await importAndWait(api, tableId);
    expect(version.execution.status, JSON.stringify(version.execution.error)).toBe('COMPLETED');
    const preview = (await api.get(`/data-tables/${tableId}/versions/1/preview`)).body;
    expect(preview.row_count).toBe(expected.length);
    const asText = (value: unknown) => (value === null ? '' : String(value));
    const rows = preview.rows.map((row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, asText(value)])));
    if (name === 'location_coordinates') {
      // The package's expected JSON for this case is known to be wrong (upstream issues #20, #22):
      // compare the columns and row count only.
      expect(Object.keys(rows[0])).toEqual(Object.keys(expected[0]!));
      return;
    }
    expect(rows).toEqual(expected);
  });
});

describe('one creation per table at a time', () => {
  it('parallel batch creates of one table start exactly one import; the rest get 20-1029', async () => {
    await putObjects(env, 'landing', { 'race/a.csv': csv(range(1, 5)) });
    const connectionId = await createObjectStoreConnection(api, env);
    const tableId = await createTable(api, await createBucketSource(api, connectionId, 'landing/race/'));
    const responses = await Promise.all(Array.from({ length: 8 }, () => api.post('/data-versions/batch-create', { data_table_ids: [tableId] })));
    const results = responses.map((response) => response.body.results[0]);
    const accepted = results.filter((result) => result.status === 'ACCEPTED');
    expect(accepted).toHaveLength(1);
    for (const refused of results.filter((result) => result.status === 'REJECTED')) {
      expect(refused.error).toMatchObject({ code: '20-1029', status: 400 });
    }
    const done = await waitForJob(api, `/data-tables/${tableId}/versions/${accepted[0].data_version.version_number}`);
    expect(done.execution.status).toBe('COMPLETED');
    // Once it ended, the next import starts and gets the next number.
    expect(await startImport(api, tableId)).toBe(2);
  });
});
