import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from '../../../infra/local/s3';
import type { SourceConnection } from '../../../shared/connectors/configuration';
import type { FetchOptions, FetchProgress } from '../../../shared/connectors/source-types';
import { fetchSource } from '../../../shared/data-sources/fetch';
import type { DataSourceData } from '../../../shared/data-sources/store';
import { AppError } from '../../../shared/errors/app-error';
import { hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import { localS3Client } from '../../support/local-s3';
import { fakeStore, type FakeStore } from './object-store-source-support';

/**
 * Reading bucket data sources for an import: against s3rver for the store's real answers, and
 * against small protocol fakes for what s3rver cannot do (paged listings: its continuation
 * tokens use DES, which OpenSSL 3 refuses; slow and stalled bodies; silence).
 */
const LARGE = randomBytes(6 * 1024 * 1024 + 123);
const OBJECTS: Record<string, Buffer> = {
  'sales/2024-01.csv': Buffer.from('region,amount\nnorth,10\n'),
  'sales/2024-02.CSV': Buffer.from('region,amount\nsouth,€20\n'),
  'sales/archive/': Buffer.alloc(0),
  'sales/archive/2023/2023-12.csv': Buffer.from('region,amount\neast,30\n'),
  'sales/big/large.csv': LARGE,
  'sales/readme.txt': Buffer.from('not data'),
  'docs/': Buffer.alloc(0),
  'docs/notes.txt': Buffer.from('notes'),
  'docs/notes.json': Buffer.from('{}'),
};

let s3: LocalS3;
let hanging: FakeEndpoint;
let paged: FakeStore;
const saved = { allowList: process.env.OUTBOUND_ALLOW_LIST, timeout: process.env.CONNECTOR_TIMEOUT_MS };
const workDirs: string[] = [];

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: ['landing', 'empty'] });
  hanging = await hangingEndpoint();
  paged = await fakeStore('paged', {
    'in/a.csv': { body: Buffer.from('a\n1\n') },
    'in/b.csv': { body: Buffer.from('b\n2\n') },
    'in/c.txt': { body: Buffer.from('c') },
    'in/d/e.csv': { body: Buffer.from('e\n3\n') },
    'in/f.csv': { body: Buffer.from('f\n4\n') },
    'in/g.csv': { body: Buffer.from('g\n5\n') },
    'slow/trickle.csv': { body: randomBytes(12 * 1024), pace: 'trickle' },
    'stalled/stall.csv': { body: randomBytes(12 * 1024), pace: 'stall' },
  });
  // The outbound guard refuses loopback unless allow-listed, as it would a user's endpoint.
  process.env.OUTBOUND_ALLOW_LIST = [
    `127.0.0.1:${s3.port}`,
    `127.0.0.1:${hanging.port}`,
    `127.0.0.1:${paged.port}`,
  ].join(',');
  const client = localS3Client(s3.endpoint);
  for (const [key, body] of Object.entries(OBJECTS))
    await client.send(new PutObjectCommand({ Bucket: 'landing', Key: key, Body: body }));
  client.destroy();
});

afterEach(() => restore('CONNECTOR_TIMEOUT_MS', saved.timeout));

afterAll(async () => {
  restore('OUTBOUND_ALLOW_LIST', saved.allowList);
  await s3?.close();
  await hanging?.close();
  await paged?.close();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function restore(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

function connection(
  overrides: { endpoint?: string; accessKeyId?: string; pathRestriction?: string } = {},
): SourceConnection {
  return {
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: overrides.accessKeyId ?? LOCAL_S3_CREDENTIALS.accessKeyId,
      endpoint: overrides.endpoint ?? s3.endpoint,
    },
    secret: LOCAL_S3_CREDENTIALS.secretAccessKey,
    settings: { path_restriction: overrides.pathRestriction ?? null },
  };
}

function bucketSource(path: string | null, type: DataSourceData['type'] = 'bucket'): DataSourceData {
  return {
    name: 'sales',
    description: null,
    tags: null,
    connection_id: 1,
    type,
    path,
    query: null,
    warehouse: null,
    share: null,
    schema: null,
    table: null,
    table_ref: null,
  };
}

function fetchOptions(overrides: Partial<FetchOptions> = {}): FetchOptions & { progress: FetchProgress[] } {
  const workDir = mkdtempSync(join(tmpdir(), 'dps-fetch-'));
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

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('fetching a bucket data source from an S3-compatible store', () => {
  it('reads every CSV below a folder at any depth, byte-exact, in key order, ignoring markers and other files', async () => {
    const options = fetchOptions();
    const fetched = await fetchSource(connection(), bucketSource('landing/sales/'), options);
    const keys = ['sales/2024-01.csv', 'sales/2024-02.CSV', 'sales/archive/2023/2023-12.csv', 'sales/big/large.csv'];
    expect(fetched.files.map((file) => file.source)).toEqual(keys.map((key) => `landing/${key}`));
    for (const [index, file] of fetched.files.entries()) {
      expect(dirname(file.localPath)).toBe(options.workDir);
      expect(file.bytes).toBe(OBJECTS[keys[index]!]!.length);
      expect(readFileSync(file.localPath).equals(OBJECTS[keys[index]!]!)).toBe(true);
    }
    expect(readdirSync(options.workDir)).toHaveLength(4);
    expect(fetched.bytesRead).toBe(keys.reduce((sum, key) => sum + OBJECTS[key]!.length, 0));
  });

  it('reports progress from the start to the last byte', async () => {
    const options = fetchOptions();
    const fetched = await fetchSource(connection(), bucketSource('landing/sales/'), options);
    expect(options.progress[0]).toEqual({ bytesRead: 0, filesDone: 0, filesTotal: 4 });
    expect(options.progress.at(-1)).toEqual({ bytesRead: fetched.bytesRead, filesDone: 4, filesTotal: 4 });
    for (const [index, update] of options.progress.entries()) {
      if (index === 0) continue;
      expect(update.bytesRead).toBeGreaterThanOrEqual(options.progress[index - 1]!.bytesRead);
      expect(update.filesDone).toBeGreaterThanOrEqual(options.progress[index - 1]!.filesDone);
    }
  });

  it('reads a path without a trailing slash as a folder when no object has that key', async () => {
    const fetched = await fetchSource(connection(), bucketSource('landing/sales'), fetchOptions());
    expect(fetched.files).toHaveLength(4);
  });

  it('reads a path naming one CSV object as that single file', async () => {
    const options = fetchOptions();
    const fetched = await fetchSource(connection(), bucketSource('landing/sales/2024-02.CSV'), options);
    expect(fetched.files).toEqual([
      {
        source: 'landing/sales/2024-02.CSV',
        localPath: expect.any(String),
        bytes: OBJECTS['sales/2024-02.CSV']!.length,
      },
    ]);
    expect(readFileSync(fetched.files[0]!.localPath).equals(OBJECTS['sales/2024-02.CSV']!)).toBe(true);
    expect(options.progress.at(-1)).toEqual({ bytesRead: fetched.bytesRead, filesDone: 1, filesTotal: 1 });
  });

  it('10-1000 for a single object that is not a CSV file', async () => {
    const error = await failureOf(fetchSource(connection(), bucketSource('landing/docs/notes.json'), fetchOptions()));
    expect(error).toMatchObject({ code: '10-1000', status: 400 });
  });

  it('30-1114 for a folder or key with nothing at or below it', async () => {
    const folder = await failureOf(fetchSource(connection(), bucketSource('landing/nothing/'), fetchOptions()));
    expect(folder).toMatchObject({ code: '30-1114', message: 'Path landing/nothing/ does not exist' });
    const key = await failureOf(fetchSource(connection(), bucketSource('landing/sales/2099-01.csv'), fetchOptions()));
    expect(key).toMatchObject({ code: '30-1114', message: 'Path landing/sales/2099-01.csv does not exist' });
  });

  it('30-1118 for a folder or bucket without CSV files', async () => {
    expect((await failureOf(fetchSource(connection(), bucketSource('landing/docs/'), fetchOptions()))).code).toBe(
      '30-1118',
    );
    expect((await failureOf(fetchSource(connection(), bucketSource('empty'), fetchOptions()))).code).toBe('30-1118');
  });

  it('30-1106 for a path outside the connection path restriction, before calling the store', async () => {
    const restricted = connection({ pathRestriction: 'landing/sales/', endpoint: hanging.endpoint });
    for (const path of ['landing/docs/', 'landing/', 'other/sales/x.csv', 'landing/sales-2024.csv']) {
      const error = await failureOf(fetchSource(restricted, bucketSource(path), fetchOptions()));
      expect(error.code, path).toBe('30-1106');
      expect(error.message).toBe(`Path ${path} is out of path restriction bounds landing/sales/`);
    }
    expect(hanging.hits()).toBe(0);
  });

  it('reads inside the path restriction, and "<folder>" under the restriction "<folder>/" only as that folder', async () => {
    const restricted = connection({ pathRestriction: 'landing/sales/' });
    expect((await fetchSource(restricted, bucketSource('landing/sales/archive/'), fetchOptions())).files).toHaveLength(
      1,
    );
    expect((await fetchSource(restricted, bucketSource('landing/sales'), fetchOptions())).files).toHaveLength(4);
  });

  it('30-1108 for a bucket that does not exist, 30-1115 and 30-1113 for malformed paths', async () => {
    expect(
      await failureOf(fetchSource(connection(), bucketSource('no-such-bucket/sales/'), fetchOptions())),
    ).toMatchObject({
      code: '30-1108',
      message: 'Bucket no-such-bucket does not exist',
    });
    expect((await failureOf(fetchSource(connection(), bucketSource('Bad_Bucket/x.csv'), fetchOptions()))).code).toBe(
      '30-1115',
    );
    expect((await failureOf(fetchSource(connection(), bucketSource('landing/a//b.csv'), fetchOptions()))).code).toBe(
      '30-1113',
    );
  });

  it('30-1116 for an access key the store does not know', async () => {
    // s3rver checks the access key but not SigV4 signatures, so a wrong secret passes there;
    // S3's SignatureDoesNotMatch (30-1117) is mapped in test/unit/connectors/object-store.
    expect(
      (
        await failureOf(
          fetchSource(connection({ accessKeyId: 'NOT-A-KEY' }), bucketSource('landing/sales/'), fetchOptions()),
        )
      ).code,
    ).toBe('30-1116');
  });

  it('10-500, not a store code, when the work folder cannot be written', async () => {
    const error = await failureOf(
      fetchSource(
        connection(),
        bucketSource('landing/sales/2024-01.csv'),
        fetchOptions({ workDir: join(tmpdir(), 'dps-missing', 'folder') }),
      ),
    );
    expect(error).toMatchObject({ code: '10-500', cause: expect.objectContaining({ code: 'ENOENT' }) });
  });

  it('rethrows the reason of an abort unchanged, already aborted or while listing', async () => {
    const reason = new Error('job stopped');
    await expect(
      fetchSource(connection(), bucketSource('landing/sales/'), fetchOptions({ signal: AbortSignal.abort(reason) })),
    ).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = fetchSource(
      connection(),
      bucketSource('landing/sales/'),
      fetchOptions({ signal: controller.signal }),
    );
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('10-1043 for a data source of another kind, 10-1501 naming the toggle of a connector not built yet', async () => {
    expect(await failureOf(fetchSource(connection(), bucketSource(null, 'rdbms'), fetchOptions()))).toMatchObject({
      code: '10-1043',
      message: 'Unsupported source type rdbms',
    });
    const pricing: SourceConnection = {
      type: 'pricing_dim',
      auth: { auth_type: 'oauth_client_credentials' },
      secret: '{}',
      settings: {},
    };
    expect(await failureOf(fetchSource(pricing, bucketSource('prices/'), fetchOptions()))).toMatchObject({
      code: '10-1501',
      status: 501,
      message: 'Feature disabled unless feature flag transfers is on',
    });
  });
});

describe('fetching from stores that page, trickle, stall or stay silent', () => {
  it('follows every page of a listing', async () => {
    const fetched = await fetchSource(
      connection({ endpoint: paged.endpoint }),
      bucketSource('paged/in/'),
      fetchOptions(),
    );
    expect(fetched.files.map((file) => file.source)).toEqual([
      'paged/in/a.csv',
      'paged/in/b.csv',
      'paged/in/d/e.csv',
      'paged/in/f.csv',
      'paged/in/g.csv',
    ]);
    expect(paged.listings()).toBeGreaterThanOrEqual(3);
  });

  it('lets a body take longer than the connector timeout while bytes keep flowing, reporting progress meanwhile', async () => {
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const options = fetchOptions();
    const started = Date.now();
    const fetched = await fetchSource(
      connection({ endpoint: paged.endpoint }),
      bucketSource('paged/slow/trickle.csv'),
      options,
    );
    expect(Date.now() - started).toBeGreaterThan(900);
    expect(readFileSync(fetched.files[0]!.localPath).equals(paged.objects['slow/trickle.csv']!.body)).toBe(true);
    const midway = options.progress.filter((update) => update.bytesRead > 0 && update.filesDone === 0);
    expect(midway.length).toBeGreaterThan(0);
  });

  it('30-1110 when a body stops flowing for the connector timeout', async () => {
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const started = Date.now();
    const error = await failureOf(
      fetchSource(connection({ endpoint: paged.endpoint }), bucketSource('paged/stalled/'), fetchOptions()),
    );
    expect(error).toMatchObject({ code: '30-1110', status: 408 });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('30-1110 when the store does not answer', async () => {
    process.env.CONNECTOR_TIMEOUT_MS = '300';
    const started = Date.now();
    expect(
      (
        await failureOf(
          fetchSource(connection({ endpoint: hanging.endpoint }), bucketSource('landing/sales/'), fetchOptions()),
        )
      ).code,
    ).toBe('30-1110');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('rethrows the reason of an abort while a body is flowing', async () => {
    const controller = new AbortController();
    const reason = new Error('inactivity');
    const options = fetchOptions({
      signal: controller.signal,
      onProgress: (update) => {
        if (update.bytesRead > 0) controller.abort(reason);
      },
    });
    // Aborted mid-body: a finished download would have resolved instead.
    await expect(
      fetchSource(connection({ endpoint: paged.endpoint }), bucketSource('paged/slow/trickle.csv'), options),
    ).rejects.toBe(reason);
  });
});
