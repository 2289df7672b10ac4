/**
 * The cloud_store connector's reader and upload helper called directly (what the import
 * worker and, later, exports call), against the GCS fake through @google-cloud/storage:
 * listings of many pages, single files, stalled bodies, aborts, uploads in one multipart
 * request and resumable in chunks, and the outbound guard on every destination.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConnection } from '../../../shared/connectors/configuration';
import type { FetchOptions } from '../../../shared/connectors/source-types';
import { fetchSource } from '../../../shared/data-sources/fetch';
import { googleAccessToken } from '../../../shared/connectors/cloud/token';
import { uploadToCloudStore, type CloudStoreUploadInput } from '../../../shared/connectors/cloud-store/upload';
import type { DataSourceData } from '../../../shared/data-sources/store';
import { AppError } from '../../../shared/errors/app-error';
import { GcsFake } from '../../fakes/gcs';

const PROJECT = 'acme-analytics';
const MANY = 1_001;

let gcs: GcsFake;
let reader: { email: string; keyJson: string };
let writer: { email: string; keyJson: string };
const saved = { ...process.env };
const workDirs: string[] = [];

beforeAll(async () => {
  gcs = await GcsFake.start();
  reader = gcs.auth.addServiceAccount({ project: PROJECT, name: 'reader' });
  writer = gcs.auth.addServiceAccount({ project: PROJECT, name: 'writer' });
  const many = Object.fromEntries(
    Array.from({ length: MANY }, (_, index) => [`many/${String(index).padStart(4, '0')}.txt`, 'x']),
  );
  gcs.addBucket('acme_raw', {
    project: PROJECT,
    grants: { [reader.email]: 'reader', [writer.email]: 'writer' },
    objects: {
      ...many,
      'many/0500.csv': 'a\n1\n',
      'many/zz/last.csv': 'a\n2\n',
      'sales/2024-01.csv': 'region,amount\nnorth,10\n',
      'sales/big.csv': randomBytes(256 * 1024),
      'sales/notes.json': '{}',
    },
  });
  process.env.OUTBOUND_ALLOW_LIST = gcs.allowOutbound;
  Object.assign(process.env, gcs.environment);
});

afterEach(() => {
  process.env.CONNECTOR_TIMEOUT_MS = saved.CONNECTOR_TIMEOUT_MS ?? '';
  if (saved.CONNECTOR_TIMEOUT_MS === undefined) delete process.env.CONNECTOR_TIMEOUT_MS;
  process.env.OUTBOUND_ALLOW_LIST = gcs.allowOutbound;
});

afterAll(async () => {
  for (const name of [
    'OUTBOUND_ALLOW_LIST',
    'GCS_API_ENDPOINT',
    'GOOGLE_STS_ENDPOINT',
    'GOOGLE_IAM_CREDENTIALS_ENDPOINT',
  ] as const) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await gcs?.close();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function connection(keyJson = reader.keyJson, pathRestriction: string | null = null): SourceConnection {
  return {
    type: 'cloud_store',
    auth: { auth_type: 'service_account_key', file_name: 'key.json' },
    secret: keyJson,
    settings: { path_restriction: pathRestriction },
  };
}

function bucketSource(path: string): DataSourceData {
  return {
    type: 'bucket',
    connection_id: 1,
    path,
    query: null,
    warehouse: null,
    share: null,
    schema: null,
    table: null,
    table_ref: null,
  } as DataSourceData;
}

function fetchOptions(signal = new AbortController().signal): FetchOptions {
  const workDir = mkdtempSync(join(tmpdir(), 'gcs-source-'));
  workDirs.push(workDir);
  return { workDir, signal, onProgress: () => undefined };
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

describe('reading a bucket data source', () => {
  it('follows every page of a listing and keeps only the CSV files, in key order', async () => {
    const before = gcs.requests.length;
    const fetched = await fetchSource(connection(), bucketSource('acme_raw/many/'), fetchOptions());
    expect(fetched.files.map((file) => file.source)).toEqual(['acme_raw/many/0500.csv', 'acme_raw/many/zz/last.csv']);
    expect(fetched.files.map((file) => readFileSync(file.localPath, 'utf8'))).toEqual(['a\n1\n', 'a\n2\n']);
    const pages = gcs.requests.slice(before).filter((call) => call.path === '/storage/v1/b/acme_raw/o');
    expect(pages.map((call) => call.query.has('pageToken'))).toEqual([false, true]);
  });

  it('reads one named file; a folder named without its slash reads the folder; a file of another type is 10-1000', async () => {
    const single = await fetchSource(connection(), bucketSource('acme_raw/sales/2024-01.csv'), fetchOptions());
    expect(single).toMatchObject({ files: [{ source: 'acme_raw/sales/2024-01.csv', bytes: 23 }], bytesRead: 23 });
    const folder = await fetchSource(connection(), bucketSource('acme_raw/sales'), fetchOptions());
    expect(folder.files.map((file) => file.source)).toEqual(['acme_raw/sales/2024-01.csv', 'acme_raw/sales/big.csv']);
    expect(readFileSync(folder.files[1]!.localPath).equals(gcs.object('acme_raw', 'sales/big.csv')!)).toBe(true);
    expect(
      await failureOf(fetchSource(connection(), bucketSource('acme_raw/sales/notes.json'), fetchOptions())),
    ).toMatchObject({ code: '10-1000' });
  });

  it('30-1306 outside the connection’s restriction, before any call', async () => {
    const before = gcs.requests.length;
    const error = await failureOf(
      fetchSource(connection(reader.keyJson, 'acme_raw/sales/'), bucketSource('acme_raw/many/'), fetchOptions()),
    );
    expect(error).toMatchObject({
      code: '30-1306',
      message: 'Path acme_raw/many/ is out of path restriction bounds acme_raw/sales/',
    });
    expect(gcs.requests.length).toBe(before);
  });

  it('30-1303 when a body stalls, within the idle bound', async () => {
    process.env.CONNECTOR_TIMEOUT_MS = '400';
    gcs.inject('stall', /\/o\/sales%2Fbig\.csv\?alt=media$/);
    const started = Date.now();
    expect(
      await failureOf(fetchSource(connection(), bucketSource('acme_raw/sales/big.csv'), fetchOptions())),
    ).toMatchObject({ code: '30-1303', status: 408 });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('30-1305 naming the object when one is deleted between the listing and its download', async () => {
    gcs.inject('gone', /\/o\/sales%2Fbig\.csv\?alt=media$/);
    expect(await failureOf(fetchSource(connection(), bucketSource('acme_raw/sales/'), fetchOptions()))).toMatchObject({
      code: '30-1305',
      message: 'Path acme_raw/sales/big.csv does not exist in the bucket',
    });
  });

  it('rethrows the reason of an abort, whatever the store was doing', async () => {
    const controller = new AbortController();
    gcs.inject('hang', /\/o\?/);
    const pending = fetchSource(connection(), bucketSource('acme_raw/sales/'), fetchOptions(controller.signal));
    const reason = new Error('job stopped');
    setTimeout(() => controller.abort(reason), 100);
    await expect(pending).rejects.toBe(reason);
  });

  it('30-1130 when the GCS endpoint or the key’s token URI is not an allowed destination', async () => {
    process.env.OUTBOUND_ALLOW_LIST = '';
    expect(await failureOf(fetchSource(connection(), bucketSource('acme_raw/sales/'), fetchOptions()))).toMatchObject({
      code: '30-1130',
      extraDetails: { host: '127.0.0.1' },
    });
    process.env.OUTBOUND_ALLOW_LIST = gcs.allowOutbound;
    const key = { ...(JSON.parse(reader.keyJson) as Record<string, string>), token_uri: 'https://10.0.0.1/token' };
    expect(
      await failureOf(fetchSource(connection(JSON.stringify(key)), bucketSource('acme_raw/sales/'), fetchOptions())),
    ).toMatchObject({
      code: '30-1130',
      extraDetails: { host: '10.0.0.1' },
    });
  });
});

describe('uploading a file (for exports)', () => {
  const local = (bytes: Buffer) => {
    const dir = mkdtempSync(join(tmpdir(), 'gcs-upload-'));
    workDirs.push(dir);
    const path = join(dir, 'out.csv');
    writeFileSync(path, bytes);
    return path;
  };
  const input = (path: string, localPath: string, keyJson = writer.keyJson): CloudStoreUploadInput => ({
    credentials: { kind: 'service_account_key', keyJson },
    pathRestriction: 'acme_raw/exports/',
    path,
    localPath,
    contentType: 'text/csv',
  });
  const uploads = (since: number) =>
    gcs.requests
      .slice(since)
      .filter((call) => call.path === '/upload/storage/v1/b/acme_raw/o')
      .map((call) => `${call.method} ${call.query.get('uploadType')}`);

  it('writes a small file in one multipart request', async () => {
    const before = gcs.requests.length;
    const data = Buffer.from('region,amount\nnorth,10\n');
    expect(await uploadToCloudStore(input('acme_raw/exports/small.csv', local(data)))).toEqual({
      path: 'acme_raw/exports/small.csv',
      bytes: data.length,
    });
    expect(gcs.object('acme_raw', 'exports/small.csv')?.equals(data)).toBe(true);
    expect(uploads(before)).toEqual(['POST multipart']);
  });

  it('writes a large file as a resumable upload, chunk by chunk', async () => {
    const before = gcs.requests.length;
    const data = randomBytes(5 * 1024 * 1024 + 300 * 1024);
    await uploadToCloudStore(input('acme_raw/exports/large.csv', local(data)), { chunkSize: 2 * 1024 * 1024 });
    expect(gcs.object('acme_raw', 'exports/large.csv')?.equals(data)).toBe(true);
    expect(uploads(before)).toEqual(['POST resumable', 'PUT resumable', 'PUT resumable', 'PUT resumable']);
  });

  it('the fake takes a simple (uploadType=media) upload as GCS does, though the SDK sends none', async () => {
    const { accessToken } = await googleAccessToken(
      { kind: 'service_account_key', keyJson: writer.keyJson },
      { scope: 'https://www.googleapis.com/auth/devstorage.read_write', timeoutMs: 2_000, keyErrorCode: '30-1320' },
    );
    const response = await fetch(
      `${gcs.endpoint}/upload/storage/v1/b/acme_raw/o?uploadType=media&name=exports%2Fsimple.csv`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'text/csv' },
        body: 'a\n1\n',
      },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'exports/simple.csv', size: '4', contentType: 'text/csv' });
    expect(gcs.object('acme_raw', 'exports/simple.csv')?.toString()).toBe('a\n1\n');
  });

  it('30-1304 for a path that is not an object, 30-1306 outside the restriction, 30-1301 without write access', async () => {
    const path = local(Buffer.from('a\n'));
    expect(await failureOf(uploadToCloudStore(input('acme_raw/exports/', path)))).toMatchObject({ code: '30-1304' });
    expect(await failureOf(uploadToCloudStore(input('acme_raw/other/x.csv', path)))).toMatchObject({ code: '30-1306' });
    expect(await failureOf(uploadToCloudStore(input('acme_raw/exports/x.csv', path, reader.keyJson)))).toMatchObject({
      code: '30-1301',
      extraDetails: { provider_status: 403 },
    });
    expect(gcs.object('acme_raw', 'exports/x.csv')).toBeUndefined();
  });
});
