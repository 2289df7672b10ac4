/**
 * Direct exports of a data table version to an S3-compatible store named in the request,
 * end to end over HTTP: the written objects read back and compared with DuckDB on the
 * source, splitting into files, CSV, every refusal, a worker that dies mid-export, and the
 * credentials' absence from responses, logs and stored items.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { logger } from '../../../shared/log';
import { cuttableProxy, failingEndpoint, type CuttableProxy, type FakeEndpoint } from '../../fakes/object-store';
import { asBody, unchecked, type ApiClient, type RequestBody, type Unchecked } from '../../support/api-client';
import { getObject, listKeys, queryFiles, sourceParquet, waitForDirectExport } from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importAndWait, importCompleted, putObjects, tableOver } from '../../support/imports';

let env: TestTwin;
let api: ApiClient;
let proxy: CuttableProxy;
let wrongSecret: FakeEndpoint;
let tableId: number;
/** Set by a test: the next export worker dies when the proxy is cut. */
let dieAt: Promise<void> | undefined;

const ROWS = Array.from(
  { length: 50 },
  (_, index) => `${index + 1},name ${index + 1},${index % 3 === 0 ? 'true' : 'false'},${(index * 1.5).toFixed(2)}`,
);
const CSV = `id,name,active,amount\n${ROWS.join('\n')}\n`;

/** A worker killed where the proxy is cut: Step Functions sees a Lambda that died without an answer. */
async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== 'export-direct') return handler;
  return (input, context) => {
    const death = dieAt;
    dieAt = undefined;
    if (!death) return handler(input, context);
    return Promise.race([
      handler(input, context),
      death.then(() => {
        throw Object.assign(new Error('RequestId: 1 Error: Runtime exited with error: signal: killed'), {
          name: 'Lambda.Unknown',
        });
      }),
    ]);
  };
}

beforeAll(async () => {
  // The proxy needs the twin's S3 and the twin needs the proxy's port: the proxy forwards to
  // a port chosen first.
  const s3Port = 20_000 + (process.pid % 20_000);
  proxy = await cuttableProxy(`http://127.0.0.1:${s3Port}`);
  wrongSecret = await failingEndpoint(403, 'SignatureDoesNotMatch');
  env = await startTestTwin({
    buckets: ['landing', 'exports'],
    s3Port,
    loadWorker,
    retryIntervalMs: 10,
    allowOutbound: [`127.0.0.1:${proxy.port}`, `127.0.0.1:${wrongSecret.port}`],
  });
  api = env.admin;
  await putObjects(env, 'landing', { 'sales/a.csv': CSV });
  tableId = await tableOver(api, env, 'landing/sales/');
  await importCompleted(api, tableId);
});

afterAll(async () => {
  await env?.close();
  await proxy?.close();
  await wrongSecret?.close();
});

function directRequest(overrides: Partial<RequestBody<'startDirectExport'>> = {}): RequestBody<'startDirectExport'> {
  return asBody('startDirectExport', {
    source_type: 'datatable',
    source_id: tableId,
    source_version: 1,
    bucket: 'exports',
    key: 'out/sales.parquet',
    endpoint: env.twin.s3.endpoint,
    access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
    secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
    ...overrides,
  });
}

async function exportAndWait(overrides: Partial<RequestBody<'startDirectExport'>>) {
  const started = await api.call('startDirectExport', { body: directRequest(overrides) });
  expect(started.status, started.text).toBe(202);
  return waitForDirectExport(api, started.body.job_id);
}

describe('direct export of a data table version', () => {
  it('writes the columns asked, booleans as 1 and 0, and reads back as DuckDB reads the source', async () => {
    const status = await exportAndWait({
      key: 'subset/sales.parquet',
      columns: ['id', 'active', 'name'],
      cast_boolean_to_integer: true,
    });
    expect(status).toMatchObject({
      bucket: 'exports',
      key: 'subset/sales.parquet',
      total_files: 1,
      files: ['subset/sales.parquet'],
      status: { status: 'COMPLETED' },
    });
    const exported = await queryFiles([await getObject(env, 'exports', 'subset/sales.parquet')], 'SELECT * FROM f0');
    const expected = await queryFiles(
      [await sourceParquet(env, tableId, 1)],
      'SELECT id, CAST(active AS INTEGER) AS active, name FROM f0',
    );
    expect(exported.rows).toEqual(expected.rows);
    expect(exported.rows).toHaveLength(50);
    expect(exported.types).toEqual({ id: 'BIGINT', active: 'INTEGER', name: 'VARCHAR' });
    expect(exported.rows.slice(0, 2)).toEqual([
      { id: '1', active: 1, name: 'name 1' },
      { id: '2', active: 0, name: 'name 2' },
    ]);
  });

  it('splits the output into total_files files whose rows, in order, are the source', async () => {
    const status = await exportAndWait({ key: 'split/sales.parquet', total_files: 3 });
    const keys = [
      'split/sales-00001-of-00003.parquet',
      'split/sales-00002-of-00003.parquet',
      'split/sales-00003-of-00003.parquet',
    ];
    expect(status).toMatchObject({ total_files: 3, files: keys, status: { status: 'COMPLETED' } });
    expect(await listKeys(env, 'exports', 'split/')).toEqual(keys);
    const parts = await Promise.all(keys.map((key) => getObject(env, 'exports', key)));
    const counts = await queryFiles(
      parts,
      'SELECT (SELECT count(*) FROM f0) AS a, (SELECT count(*) FROM f1) AS b, (SELECT count(*) FROM f2) AS c',
    );
    expect(counts.rows).toEqual([{ a: '16', b: '17', c: '17' }]);
    const exported = await queryFiles(parts, 'SELECT * FROM f0 UNION ALL SELECT * FROM f1 UNION ALL SELECT * FROM f2');
    const expected = await queryFiles([await sourceParquet(env, tableId, 1)], 'SELECT * FROM f0');
    expect(exported.rows).toEqual(expected.rows);
    expect(exported.types).toEqual(expected.types);
  });

  it('writes CSV when asked, from the sample when asked', async () => {
    const status = await exportAndWait({
      key: 'csv/sales.csv',
      format: 'csv',
      use_sample: true,
      columns: ['name', 'active'],
    });
    expect(status).toMatchObject({ format: 'csv', use_sample: true, status: { status: 'COMPLETED' } });
    const text = (await getObject(env, 'exports', 'csv/sales.csv')).toString('utf8');
    expect(text.split('\n').slice(0, 3)).toEqual(['name,active', 'name 1,true', 'name 2,false']);
  });
});

describe('refusals', () => {
  const refused = async (body: RequestBody<'startDirectExport'> | Unchecked, status: number, code: string) => {
    const response = await api.call('startDirectExport', { body });
    expect(response.status, response.text).toBe(status);
    expect(response.problem.code).toBe(code);
    return response;
  };

  it('refuses an unknown column with 422 20-1031 naming it', async () => {
    const response = await refused(directRequest({ columns: ['id', 'nope'] }), 422, '20-1031');
    expect(response.problem.detail).toContain('nope');
  });

  it('refuses a wrong secret key with 30-1109, a missing bucket with 30-1108', async () => {
    await refused(directRequest({ endpoint: wrongSecret.endpoint, secret_key: 'not-the-secret' }), 400, '30-1109');
    expect(wrongSecret.hits()).toBe(1);
    await refused(directRequest({ bucket: 'no-such-bucket' }), 400, '30-1108');
  });

  it('puts the endpoint through the outbound guard (10-1008, 30-1130)', async () => {
    const response = await refused(directRequest({ endpoint: 'ftp://store.example.com' }), 400, '10-1008');
    expect(response.problem.extraDetails).toHaveProperty('endpoint');
    await refused(directRequest({ endpoint: 'https://169.254.169.254' }), 400, '30-1130');
    await refused(directRequest({ endpoint: 'https://10.0.0.7:9000' }), 400, '30-1130');
  });

  it('refuses a missing version (10-404), a failed one (20-1059) and bad numbers (10-1400)', async () => {
    await refused(directRequest({ source_version: 9 }), 404, '10-404');
    const emptyTable = await tableOver(api, env, 'landing/nothing-here/');
    expect((await importAndWait(api, emptyTable)).execution.status).toBe('FAILED');
    await refused(directRequest({ source_id: emptyTable }), 404, '20-1059');
    const response = await refused(unchecked({ ...directRequest(), total_files: 0 }), 400, '10-1400');
    expect(response.problem.extraDetails).toHaveProperty('total_files');
  });

  it('refuses a key with a segment longer than a file name (10-1400 naming key), and goes on answering', async () => {
    const response = await refused(
      unchecked({ ...directRequest(), key: `out/${'x'.repeat(300)}.parquet` }),
      400,
      '10-1400',
    );
    expect(response.problem.extraDetails).toHaveProperty('key');
    const other = await env.clientFor(`after-long-key-${process.pid}`, ['admin']);
    expect((await other.call('listDataTables', {})).status).toBe(200);
  });

  it('refuses a draft dataset version with 20-1016, and one whose output node never ran with 20-1019', async () => {
    const dataset = await api.call('createDataset', { body: { name: `exported-${process.pid}` } });
    expect(dataset.status, dataset.text).toBe(201);
    const body = directRequest({ source_type: 'dataset', source_id: dataset.body.id, source_version: 1 });
    await refused(body, 400, '20-1016');
    await refused({ ...body, validate_release: false }, 400, '20-1019');
    await refused({ ...body, source_id: 999_999 }, 404, '10-404');
  });

  it('answers 10-404 for an unknown job, and another tenant does not see the job', async () => {
    const started = await api.call('startDirectExport', { body: directRequest({ key: 'tenant/sales.parquet' }) });
    expect(started.status).toBe(202);
    const other = await env.clientFor('other-tenant', ['admin']);
    expect((await other.call('getDirectExport', { params: { job_id: started.body.job_id } })).status).toBe(404);
    expect(
      (await api.call('getDirectExport', { params: { job_id: 'direct-export-00000000-0000-4000-8000-000000000000' } }))
        .status,
    ).toBe(404);
    expect((await api.call('getMultiPartExport', { params: { job_id: started.body.job_id } })).status).toBe(404);
    await waitForDirectExport(api, started.body.job_id);
  });
});

describe('retries', () => {
  it('answers a retry with the same Idempotency-Key with the first job, also when both arrive at once', async () => {
    const body = directRequest({ key: 'retried/sales.parquet' });
    const first = await api.call('startDirectExport', {
      body,
      headers: { 'idempotency-key': `direct-${process.pid}` },
    });
    const again = await api.call('startDirectExport', {
      body,
      headers: { 'idempotency-key': `direct-${process.pid}` },
    });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.job_id).toBe(first.body.job_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const otherBody = await api.call('startDirectExport', {
      body: directRequest({ key: 'other/sales.parquet' }),
      headers: { 'idempotency-key': `direct-${process.pid}` },
    });
    expect(otherBody.problem.code).toBe('10-1400');

    const raced = await Promise.all(
      [1, 2].map(() => api.call('startDirectExport', { body, headers: { 'idempotency-key': `raced-${process.pid}` } })),
    );
    const started = raced.filter((response) => response.status === 202);
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(new Set(started.map((response) => response.body.job_id)).size).toBe(1);
    for (const response of raced.filter((candidate) => candidate.status !== 202))
      expect(response.problem.code).toBe('10-409');
    await waitForDirectExport(api, first.body.job_id);
    await waitForDirectExport(api, started[0]!.body.job_id);
  });
});

describe('failures', () => {
  it('a worker that dies before its uploads are completed leaves nothing under the final keys', async () => {
    // Cut where the first file's upload would be completed: every part is stored by then.
    proxy.arm((method, url) => method === 'POST' && url.includes('uploadId='));
    dieAt = proxy.cut;
    const status = await exportAndWait({ endpoint: proxy.endpoint, key: 'crash/sales.parquet', total_files: 2 });
    expect(status.status).toMatchObject({ status: 'FAILED', error_code: '10-500' });
    expect(await listKeys(env, 'exports', 'crash/')).toEqual([]);
  });
});

describe('keys the local S3 cannot keep as files', () => {
  it("fail the export with the store's refusal (its key is too long), and the twin goes on answering every tenant", async () => {
    // 240 bytes pass the request's rule (255) and S3's, but s3rver adds its own suffix to the file name.
    const status = await exportAndWait({ key: `long/${'x'.repeat(232)}.parquet` });
    expect(status.status).toMatchObject({ status: 'FAILED', error_code: '30-1100' });
    expect(status.status.error_cause).toContain('key is too long');
    const other = await env.clientFor(`after-store-refusal-${process.pid}`, ['admin']);
    expect((await other.call('listDataTables', {})).status).toBe(200);
    expect((await exportAndWait({ key: 'after/sales.parquet' })).status.status).toBe('COMPLETED');
  });
});

describe('credentials', () => {
  it('appear in no response, no log line and no stored item, and are deleted when the job ends', async () => {
    const sessionToken = `SESSION-${process.pid}-${Date.now()}`;
    const lines: string[] = [];
    const [writeOut, writeErr] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
    const capture = ((chunk: unknown) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    logger.setLogLevel('DEBUG');
    const texts: string[] = [];
    try {
      const started = await api.call('startDirectExport', {
        body: directRequest({ key: 'secrets/sales.parquet', session_token: sessionToken }),
      });
      texts.push(started.text);
      // s3rver does not check signatures, so this one is accepted and runs like the first: both must end before the scan.
      const second = await api.call('startDirectExport', {
        body: directRequest({ key: 'secrets/second.parquet', secret_key: `WRONG-${sessionToken}` }),
      });
      texts.push(second.text);
      const done = await waitForDirectExport(api, started.body.job_id);
      expect(done.status, JSON.stringify(done)).toMatchObject({ status: 'COMPLETED' });
      texts.push(JSON.stringify(done));
      if (second.status === 202) texts.push(JSON.stringify(await waitForDirectExport(api, second.body.job_id)));
    } finally {
      logger.setLogLevel('SILENT');
      process.stdout.write = writeOut;
      process.stderr.write = writeErr;
    }
    const items = (await dynamoDocumentClient().send(new ScanCommand({ TableName: config.tableName }))).Items ?? [];
    // Connections keep their access key id in clear (it names the key, it is not the secret).
    const exportItems = items.filter((item) => !String(item.pk).includes('#CONNECTION'));
    for (const text of [...texts, ...lines, ...exportItems.map((item) => JSON.stringify(item))]) {
      expect(text).not.toContain(sessionToken);
      expect(text).not.toContain(LOCAL_S3_CREDENTIALS.secretAccessKey);
    }
    expect(items.filter((item) => String(item.sk).endsWith('#SECRET'))).toEqual([]);
  });
});
