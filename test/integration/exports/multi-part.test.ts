/**
 * Multi-part exports end to end: the caller creates a multipart upload on the twin's S3 and
 * pre-signs one UploadPart URL per part (@aws-sdk/s3-request-presigner); the export PUTs
 * the parts, the caller completes the upload with the ETags of the job status and reads the
 * object back.
 */
import {
  CompleteMultipartUploadCommand,
  HeadObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flakyProxy, type FakeEndpoint } from '../../fakes/object-store';
import { asBody, type ApiClient, type RequestBody } from '../../support/api-client';
import { MIN_PART_BYTES } from '../../../shared/connectors/presigned-parts';
import {
  csvByDuckDb,
  getObject,
  localS3,
  queryFiles,
  sourceParquet,
  waitForMultiPartExport,
} from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importAndWait, putObjects, tableOver } from '../../support/imports';
import { completedUpload, incompressibleParquet, presignedUpload as presigned } from '../../support/multi-part';

let env: TestTwin;
let api: ApiClient;
let s3: S3Client;
let bigTable: number;
let smallTable: number;
/** Wide rows, then narrow ones, then wide again: its middle third is far smaller than the others. */
let skewedTable: number;
/** In front of the twin's S3: the first PUT through it is answered 503. */
let flaky: FakeEndpoint & { readonly puts: () => number };

const MIB = 2 ** 20;
const ROWS = 200_000;
const SKEWED_ROWS = 30_000;

/** Rows of ~600 bytes in the first and last thirds, of a few bytes in the middle one. */
async function skewedParquet(): Promise<Buffer> {
  const dir = mkdtempSync(join(os.tmpdir(), 'multi-part-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const path = join(dir, 'skewed.parquet');
    const narrow = `i >= ${SKEWED_ROWS / 3} AND i < ${(2 * SKEWED_ROWS) / 3}`;
    await connection.run(
      `COPY (SELECT i AS id, CASE WHEN ${narrow} THEN 'x' ELSE repeat(md5(i::VARCHAR), 19) END AS body FROM range(${SKEWED_ROWS}) t(i)) TO ${quotedString(path)} (FORMAT parquet)`,
    );
    connection.closeSync();
    return readFileSync(path);
  } finally {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  // The proxy needs the twin's S3 and the twin must allow the proxy: the S3 port is chosen first.
  const s3Port = 40_000 + (process.pid % 20_000);
  flaky = await flakyProxy(`http://127.0.0.1:${s3Port}`, 1);
  env = await startTestTwin({
    buckets: ['landing', 'uploads'],
    s3Port,
    retryIntervalMs: 10,
    allowOutbound: [`127.0.0.1:${flaky.port}`],
  });
  api = env.admin;
  s3 = localS3(env);
  await putObjects(env, 'landing', {
    // ~13 MiB
    'big/data.parquet': await incompressibleParquet(ROWS),
    'skewed/data.parquet': await skewedParquet(),
    'small/a.csv': 'id,flag\n1,true\n2,false\n',
  });
  bigTable = await tableOver(api, env, 'landing/big/');
  skewedTable = await tableOver(api, env, 'landing/skewed/');
  smallTable = await tableOver(api, env, 'landing/small/');
  const imported = await Promise.all([
    importAndWait(api, bigTable),
    importAndWait(api, skewedTable),
    importAndWait(api, smallTable),
  ]);
  expect(imported.map((version) => version.execution.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await env?.close();
  await flaky?.close();
});

/** A multipart upload of `uploads/<key>` and one pre-signed UploadPart URL per part. */
function presignedUpload(key: string, parts: number): Promise<{ uploadId: string; urls: string[] }> {
  return presigned(s3, 'uploads', key, parts);
}

/** Completes the upload of `uploads/<key>` with the parts the job answered and reads the object back. */
function completed(
  key: string,
  uploadId: string,
  result: readonly { e_tag: string; part_number: number }[],
): Promise<Buffer> {
  return completedUpload(env, s3, { bucket: 'uploads', key, uploadId }, result);
}

/** A part's ETag as S3 computes it: the MD5 of its bytes. */
const md5 = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;

/** Byte offset in `csv` of the start of data row `row` (0-based; the header is line 0 and no value holds a line break). */
function rowStart(csv: Buffer, row: number): number {
  let at = 0;
  for (let line = 0; line <= row; line += 1) at = csv.indexOf(10, at) + 1;
  return at;
}

/** The big table as CSV with booleans as integers, written by DuckDB directly from the table's Parquet. */
async function bigCsv(): Promise<Buffer> {
  return csvByDuckDb(await sourceParquet(env, bigTable, 1), 'SELECT id, digest, CAST(even AS INTEGER) AS even FROM f0');
}

function multiPartRequest(
  tableId: number,
  urls: readonly string[],
  overrides: Partial<RequestBody<'startMultiPartExport'>> = {},
): RequestBody<'startMultiPartExport'> {
  return asBody('startMultiPartExport', {
    source_type: 'datatable',
    source_id: tableId,
    source_version: 1,
    parts_urls: [...urls],
    ...overrides,
  });
}

describe('multi-part export', () => {
  it('PUTs exactly the parts asked; the caller completes the upload with their ETags and reads the object back', async () => {
    const key = 'out/big.parquet';
    const { uploadId, urls } = await presignedUpload(key, 3);
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(bigTable, urls, { cast_boolean_to_integer: true }),
    });
    expect(started.status, started.text).toBe(202);
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 3 });
    expect(status.result.map((part) => part.part_number)).toEqual([1, 2, 3]);
    expect(JSON.stringify(status)).not.toContain('X-Amz-Signature');

    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'uploads',
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: status.result.map((part) => ({ ETag: part.e_tag, PartNumber: part.part_number })) },
      }),
    );
    const object = await getObject(env, 'uploads', key);
    // A part's ETag is the MD5 of its bytes: the object cut at the part size (5 MiB, or a third
    // when that is more) gives back every ETag, so every part but the last held at least 5 MiB.
    expect(object.length).toBeGreaterThan(10 * MIB);
    const partSize = Math.max(5 * MIB, Math.ceil(object.length / 3));
    const md5 = (from: number, to: number) => `"${createHash('md5').update(object.subarray(from, to)).digest('hex')}"`;
    expect(status.result.map((part) => part.e_tag)).toEqual([
      md5(0, partSize),
      md5(partSize, 2 * partSize),
      md5(2 * partSize, object.length),
    ]);
    const exported = await queryFiles(
      [object],
      'SELECT count(*) AS n, sum(even) AS evens, max(length(digest)) AS width FROM f0',
    );
    expect(exported.rows).toEqual([{ n: String(ROWS), evens: String(ROWS / 2), width: '64' }]);
    const [fromExport, fromSource] = await Promise.all([
      queryFiles([object], 'SELECT * FROM f0 WHERE id % 9973 = 0 ORDER BY id'),
      queryFiles(
        [await sourceParquet(env, bigTable, 1)],
        'SELECT id, digest, CAST(even AS INTEGER) AS even FROM f0 WHERE id % 9973 = 0 ORDER BY id',
      ),
    ]);
    expect(fromExport.rows).toEqual(fromSource.rows);
    expect(fromExport.types.even).toBe('INTEGER');
  });

  it('writes a CSV as row slices, each PUT as its part: the object is byte for byte the CSV one COPY writes', async () => {
    const key = 'out/sliced.csv';
    const { uploadId, urls } = await presignedUpload(key, 2);
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(bigTable, urls, { format: 'csv', cast_boolean_to_integer: true }),
    });
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 2 });
    const [object, expected] = await Promise.all([completed(key, uploadId, status.result), bigCsv()]);
    expect(object.length).toBe(expected.length);
    expect(object.equals(expected)).toBe(true);
    // The parts are the halves of the rows (header + rows 0..99 999, then the rest), not halves of the bytes.
    const cut = rowStart(expected, ROWS / 2);
    expect(cut).toBeGreaterThanOrEqual(MIN_PART_BYTES);
    expect(cut).not.toBe(Math.ceil(expected.length / 2));
    expect(status.result.map((part) => part.e_tag)).toEqual([
      md5(expected.subarray(0, cut)),
      md5(expected.subarray(cut)),
    ]);
  });

  it('falls back to one CSV cut into byte ranges when row slices would be under 5 MiB', async () => {
    const key = 'out/cut.csv';
    const expected = await bigCsv();
    // A third of the rows is under S3's smallest part; the whole is enough for three parts.
    expect(rowStart(expected, ROWS / 3)).toBeLessThan(MIN_PART_BYTES);
    expect(expected.length).toBeGreaterThan(2 * MIN_PART_BYTES);
    const { uploadId, urls } = await presignedUpload(key, 3);
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(bigTable, urls, { format: 'csv', cast_boolean_to_integer: true }),
    });
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 3 });
    const object = await completed(key, uploadId, status.result);
    expect(object.equals(expected)).toBe(true);
    const cuts = [0, MIN_PART_BYTES, 2 * MIN_PART_BYTES, expected.length];
    expect(status.result.map((part) => part.e_tag)).toEqual(
      [0, 1, 2].map((index) => md5(expected.subarray(cuts[index], cuts[index + 1]))),
    );
  });

  it('falls back when a later slice comes out under 5 MiB: the parts already sent are PUT again, cut from one CSV', async () => {
    const key = 'out/skewed.csv';
    const expected = await csvByDuckDb(await sourceParquet(env, skewedTable, 1), 'SELECT id, body FROM f0');
    // The first third is a valid part (and is sent); the second is not.
    const [first, second] = [rowStart(expected, SKEWED_ROWS / 3), rowStart(expected, (2 * SKEWED_ROWS) / 3)];
    expect(first).toBeGreaterThanOrEqual(MIN_PART_BYTES);
    expect(second - first).toBeLessThan(MIN_PART_BYTES);
    const { uploadId, urls } = await presignedUpload(key, 3);
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(skewedTable, urls, { format: 'csv' }),
    });
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'COMPLETED', parts: 3 });
    const object = await completed(key, uploadId, status.result);
    expect(object.equals(expected)).toBe(true);
    const cuts = [0, MIN_PART_BYTES, 2 * MIN_PART_BYTES, expected.length];
    expect(status.result.map((part) => part.e_tag)).toEqual(
      [0, 1, 2].map((index) => md5(expected.subarray(cuts[index], cuts[index + 1]))),
    );
  });

  it('fails the job when a part PUT is refused, and no object is left', async () => {
    const key = 'out/refused-part.csv';
    const { urls } = await presignedUpload(key, 2);
    // Part 2 goes to a bucket that does not exist: the store refuses it (s3rver answers 404 and
    // drops the connection mid-body, which is retried, then given up).
    const missing = await getSignedUrl(
      s3,
      new UploadPartCommand({ Bucket: 'no-such-bucket', Key: key, UploadId: 'none', PartNumber: 2 }),
      { expiresIn: 600 },
    );
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(bigTable, [urls[0]!, missing], { format: 'csv' }),
    });
    expect(started.status, started.text).toBe(202);
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'FAILED', error_code: '30-1100', result: [] });
    expect(JSON.stringify(status)).not.toContain('X-Amz-Signature');
    await expect(s3.send(new HeadObjectCommand({ Bucket: 'uploads', Key: key }))).rejects.toMatchObject({
      name: 'NotFound',
    });
  });

  it('fails the job with 10-1400 on parts_urls when the export is too small for the parts asked', async () => {
    const { urls } = await presignedUpload('out/small.parquet', 3);
    const started = await api.call('startMultiPartExport', { body: multiPartRequest(smallTable, urls) });
    expect(started.status, started.text).toBe(202);
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status).toMatchObject({ status: 'FAILED', error_code: '10-1400', result: [] });
    expect(status.error).toMatch(/10-1400: .*3 parts need at least 10485761/);
  });

  it('exports a small table in one part', async () => {
    const key = 'out/one.csv';
    const { uploadId, urls } = await presignedUpload(key, 1);
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(smallTable, urls, { format: 'csv', cast_boolean_to_integer: true }),
    });
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status).toMatchObject({ status: 'COMPLETED', result: [{ part_number: 1 }] });
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'uploads',
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: [{ ETag: status.result[0]!.e_tag, PartNumber: 1 }] },
      }),
    );
    expect((await getObject(env, 'uploads', key)).toString('utf8')).toBe('id,flag\n1,1\n2,0\n');
  });

  it('retries a part the store answers 503, and completes', async () => {
    const key = 'out/retried.csv';
    const { uploadId, urls } = await presignedUpload(key, 1);
    // The same URL through the proxy, which the twin allows: the first PUT meets a 503.
    const viaProxy = urls.map((url) => url.replace(env.twin.s3.endpoint, flaky.endpoint));
    const started = await api.call('startMultiPartExport', {
      body: multiPartRequest(smallTable, viaProxy, { format: 'csv' }),
    });
    const status = await waitForMultiPartExport(api, started.body.job_id);
    expect(status).toMatchObject({ status: 'COMPLETED', result: [{ part_number: 1 }] });
    expect(flaky.puts()).toBe(2);
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'uploads',
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: [{ ETag: status.result[0]!.e_tag, PartNumber: 1 }] },
      }),
    );
    expect((await getObject(env, 'uploads', key)).toString('utf8')).toBe('id,flag\n1,true\n2,false\n');
  });

  it('puts every part URL through the outbound guard, and checks the columns', async () => {
    const refused = async (body: RequestBody<'startMultiPartExport'>, status: number, code: string) => {
      const response = await api.call('startMultiPartExport', { body });
      expect(response.status, response.text).toBe(status);
      expect(response.problem.code).toBe(code);
      return response;
    };
    const { urls } = await presignedUpload('out/refused.parquet', 2);
    const guarded = await refused(
      multiPartRequest(smallTable, [urls[0]!, 'https://169.254.169.254/latest/meta-data']),
      400,
      '30-1130',
    );
    expect(guarded.text).not.toContain('X-Amz-Signature');
    const invalid = await refused(multiPartRequest(smallTable, [urls[0]!, 'not a url']), 400, '10-1008');
    expect(invalid.problem.extraDetails).toHaveProperty(['parts_urls[1]']);
    await refused(multiPartRequest(smallTable, urls, { columns: ['id', 'missing'] }), 422, '20-1031');
  });
});
