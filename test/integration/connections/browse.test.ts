import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { failingEndpoint, hangingEndpoint, type FakeEndpoint } from '../../fakes/object-store';
import type { ConnectionCreateRequest } from '../../../shared/model/connection';
import { unchecked, type ApiClient, type CallOptions, type ResponseBody } from '../../support/api-client';
import { connectionCases } from '../../support/connections';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { localS3Client } from '../../support/local-s3';

let env: TestTwin;
let api: ApiClient;
let hanging: FakeEndpoint;
let failing: FakeEndpoint;
let paged: PagedStore;
const ids: Record<string, number> = {};

const PAGED_KEYS = ['in/a.csv', 'in/b.csv', 'in/c/x.csv', 'in/d.csv', 'in/e/y.csv', 'in/e/z.csv'];

beforeAll(async () => {
  hanging = await hangingEndpoint();
  failing = await failingEndpoint();
  paged = await pagedStore('paged', PAGED_KEYS);
  env = await startTestTwin({
    buckets: ['demo', 'empty'],
    allowOutbound: [`127.0.0.1:${hanging.port}`, `127.0.0.1:${failing.port}`, `127.0.0.1:${paged.port}`],
    environment: { CONNECTOR_TIMEOUT_MS: '300' },
  });
  api = env.admin;
  const s3 = localS3Client(env.twin.s3.endpoint);
  for (const [key, body] of Object.entries({
    'sales/': '',
    'sales/2024-01.csv': 'a,b\n1,2\n',
    'sales/2024-02.csv': 'a,b\n1,2\n3,4\n',
    'sales/archive/2023-12.csv': 'a,b\n',
    'sales/reports/q1.csv': 'a,b\n',
    'readme.txt': 'hello',
    'nested/x.csv': 'x\n',
    'nested/only-sub/deeper/a.csv': 'a\n',
  })) {
    await s3.send(new PutObjectCommand({ Bucket: 'demo', Key: key, Body: Buffer.from(body) }));
  }
  s3.destroy();

  const create = async (name: string, request: ConnectionCreateRequest) => {
    const created = await api.call('createConnection', { body: request });
    expect(created.status, name).toBe(201);
    ids[name] = created.body.id;
  };
  await create('open', objectStore('open'));
  await create('restricted', objectStore('restricted', { path_restriction: 'demo/sales/' }));
  await create('unknown key', objectStore('unknown key', { access_key_id: 'NOT-A-KEY' }));
  await create('hanging', objectStore('hanging', { endpoint: hanging.endpoint }));
  await create('failing', objectStore('failing', { endpoint: failing.endpoint }));
  await create('paged', objectStore('paged', { endpoint: paged.endpoint }));
  const cases = connectionCases(env.twin.s3.endpoint, ' browse');
  await create('warehouse', cases.find((c) => c.request.type === 'warehouse')!.request);
});

afterAll(async () => {
  await env?.close();
  await hanging?.close();
  await failing?.close();
  await paged?.close();
});

function objectStore(
  name: string,
  overrides: { endpoint?: string; access_key_id?: string; path_restriction?: string } = {},
): ConnectionCreateRequest {
  return {
    name,
    type: 'object_store',
    auth: {
      auth_type: 'secret_key',
      access_key_id: overrides.access_key_id ?? LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint: overrides.endpoint ?? env.twin.s3.endpoint,
    },
    ...(overrides.path_restriction === undefined ? {} : { path_restriction: overrides.path_restriction }),
  };
}

type BrowseBody = CallOptions<'browseConnection'>['body'];

function browse(connection: string, body: BrowseBody, client = api) {
  return client.call('browseConnection', { params: { connection_id: ids[connection]! }, body });
}

async function expectProblem(connection: string, body: BrowseBody, status: number, code: string) {
  const response = await browse(connection, body);
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.problem).toMatchObject({
    status,
    code,
    instance: `/api/data/v1/connections/${ids[connection]}/browse`,
  });
  return response.problem;
}

const isoDate = () => expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('browsing an object-store connection', () => {
  it('lists one folder level: subfolders, then files with sizes and dates, without the folder marker', async () => {
    const response = await browse('restricted', { path: 'demo/sales/' });
    expect(response.status).toBe(200);
    // Compared on the wire: the response schema would strip a field it does not name.
    expect(response.json).toEqual({
      folders: [
        { name: 'archive', path: 'demo/sales/archive/' },
        { name: 'reports', path: 'demo/sales/reports/' },
      ],
      files: [
        { name: '2024-01.csv', path: 'demo/sales/2024-01.csv', size: 8, last_modified: isoDate() },
        { name: '2024-02.csv', path: 'demo/sales/2024-02.csv', size: 12, last_modified: isoDate() },
      ],
      metadata: {
        bucket: 'demo',
        prefix: 'sales/',
        path: 'demo/sales/',
        truncated: false,
        next_continuation_token: null,
        key_count: 4,
      },
    });
    const age = Date.now() - Date.parse(response.body.files[0]?.last_modified ?? '');
    expect(age).toBeGreaterThanOrEqual(-5_000);
    expect(age).toBeLessThan(120_000);
  });

  it('lists the bucket root, a path without its trailing slash, and a folder holding only subfolders', async () => {
    const root = await browse('open', { path: 'demo' });
    expect(root.status).toBe(200);
    // s3rver leaves out a folder that holds only subfolders one level up; S3 does not.
    expect(root.body.folders.map((folder) => folder.name)).toEqual(['nested', 'sales']);
    expect(root.json).toHaveProperty('files', [
      { name: 'readme.txt', path: 'demo/readme.txt', size: 5, last_modified: isoDate() },
    ]);
    expect(root.body.metadata).toMatchObject({ bucket: 'demo', prefix: '', path: 'demo/', key_count: 3 });

    const noSlash = await browse('restricted', { path: 'demo/sales/archive' });
    expect(noSlash.body.files.map((file) => file.path)).toEqual(['demo/sales/archive/2023-12.csv']);

    const onlySubfolders = await browse('open', { path: 'demo/nested/only-sub/' });
    expect(onlySubfolders.status).toBe(200);
    expect(onlySubfolders.body).toMatchObject({
      folders: [{ name: 'deeper', path: 'demo/nested/only-sub/deeper/' }],
      files: [],
    });
  });

  it('lists an empty bucket as empty', async () => {
    const response = await browse('open', { path: 'empty/' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ folders: [], files: [], metadata: { key_count: 0, truncated: false } });
  });

  it('pages with max_items and continuation_token, folders and files counting together', async () => {
    const pages: ResponseBody<'browseConnection'>[] = [];
    let token: string | undefined;
    do {
      const response = await browse('paged', {
        path: 'paged/in/',
        max_items: 2,
        ...(token === undefined ? {} : { continuation_token: token }),
      });
      expect(response.status).toBe(200);
      expect(response.body.metadata.key_count).toBeLessThanOrEqual(2);
      expect(response.body.metadata.truncated).toBe(response.body.metadata.next_continuation_token !== null);
      pages.push(response.body);
      token = response.body.metadata.next_continuation_token ?? undefined;
    } while (token !== undefined);
    expect(pages).toHaveLength(3);
    expect(pages.map((page) => [...page.folders.map((f) => `${f.name}/`), ...page.files.map((f) => f.name)])).toEqual([
      ['a.csv', 'b.csv'],
      ['c/', 'd.csv'],
      ['e/'],
    ]);
    expect(paged.maxKeysSeen()).toEqual(['2', '2', '2']);

    const whole = await browse('paged', { path: 'paged/in/' });
    expect(whole.body.metadata).toMatchObject({ truncated: false, next_continuation_token: null, key_count: 5 });
  });

  it('10-1400 for a request breaking its rules', async () => {
    for (const body of [
      {},
      { path: '' },
      { path: 'demo/', max_items: 0 },
      { path: 'demo/', max_items: 1001 },
      { path: 'demo/', max_items: '2' },
      { path: 'demo/', extra: 1 },
    ]) {
      await expectProblem('open', unchecked(body), 400, '10-1400');
    }
  });
});

describe('refusals of a browse', () => {
  it('30-1106 for a path outside the stored path restriction', async () => {
    for (const path of ['demo', 'demo/other/', 'other/sales/', 'demo/salesman/']) {
      const problem = await expectProblem('restricted', { path }, 400, '30-1106');
      expect(problem.detail).toContain('demo/sales/');
    }
  });

  it('30-1115 for an invalid bucket name, 30-1113 for a malformed path', async () => {
    expect((await expectProblem('open', { path: 'Bad_Bucket/' }, 400, '30-1115')).detail).toBe(
      'Bucket name Bad_Bucket is invalid',
    );
    for (const path of ['demo/a//b/', 'demo/../etc/', 'demo/a\\b/'])
      await expectProblem('open', { path }, 400, '30-1113');
  });

  it('30-1114 for a folder with nothing below it, 30-1108 for a bucket that does not exist', async () => {
    expect((await expectProblem('restricted', { path: 'demo/sales/nothing/' }, 400, '30-1114')).detail).toBe(
      'Path demo/sales/nothing/ does not exist',
    );
    expect((await expectProblem('open', { path: 'no-such-bucket/' }, 400, '30-1108')).detail).toBe(
      'Bucket no-such-bucket does not exist',
    );
  });

  it('30-1116 for an unknown access key, 30-1110 for a silent store, 30-1100 for a failing one', async () => {
    await expectProblem('unknown key', { path: 'demo/' }, 400, '30-1116');
    const started = Date.now();
    await expectProblem('hanging', { path: 'demo/' }, 408, '30-1110');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await expectProblem('failing', { path: 'demo/' }, 400, '30-1100')).extraDetails).toEqual({
      provider_error: 'InternalError',
      provider_status: 500,
    });
  });

  // Browsing cloud_store connections: test/integration/connectors/cloud-store*.test.ts.
  it('10-1043 for a connection that is not a bucket store', async () => {
    expect((await expectProblem('warehouse', { path: 'demo/' }, 400, '10-1043')).detail).toBe(
      'Unsupported source type warehouse',
    );
  });

  it("401 without a token, 403 for a viewer, 404 for another tenant's connection or none", async () => {
    const anonymous = await browse('open', { path: 'demo/' }, env.anonymous);
    expect(anonymous.status).toBe(401);
    expect(anonymous.problem.code).toBe('10-401');

    const viewer = await browse('open', { path: 'demo/' }, await env.clientFor(env.admin.tenantId!, ['viewer']));
    expect(viewer.status).toBe(403);
    expect(viewer.problem).toMatchObject({ code: '10-403', extraDetails: { required_permission: 'data:write' } });
    const editor = await browse('open', { path: 'demo/' }, await env.clientFor(env.admin.tenantId!, ['editor']));
    expect(editor.status).toBe(200);

    const stranger = await browse('open', { path: 'demo/' }, await env.clientFor('other-tenant', ['admin']));
    expect(stranger.status).toBe(404);
    expect(stranger.problem.code).toBe('10-404');
    expect(
      (await api.call('browseConnection', { params: { connection_id: 999999 }, body: { path: 'demo/' } })).problem.code,
    ).toBe('10-404');
  });
});

interface PagedStore {
  readonly endpoint: string;
  readonly port: number;
  /** The max-keys of every listing received. */
  readonly maxKeysSeen: () => (string | null)[];
  close(): Promise<void>;
}

/**
 * One bucket answering ListObjectsV2 with S3's paging: folders (common prefixes) and files
 * count together towards max-keys. s3rver cannot page: its continuation tokens use DES,
 * which OpenSSL 3 refuses.
 */
async function pagedStore(bucket: string, keys: readonly string[]): Promise<PagedStore> {
  const maxKeys: (string | null)[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    const query = new URL(request.url ?? '/', 'http://fake').searchParams;
    maxKeys.push(query.get('max-keys'));
    const prefix = query.get('prefix') ?? '';
    const entries = [
      ...new Set(
        keys
          .filter((key) => key.startsWith(prefix))
          .map((key) => {
            const cut = key.indexOf('/', prefix.length);
            return cut === -1 ? key : key.slice(0, cut + 1);
          }),
      ),
    ].sort();
    const start = Number(query.get('continuation-token') ?? '0');
    const page = entries.slice(start, start + Number(query.get('max-keys') ?? '1000'));
    const truncated = start + page.length < entries.length;
    const body = [
      `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${prefix}</Prefix>`,
      `<Delimiter>/</Delimiter><KeyCount>${page.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>`,
      truncated ? `<NextContinuationToken>${start + page.length}</NextContinuationToken>` : '',
      ...page
        .filter((entry) => !entry.endsWith('/'))
        .map(
          (key) =>
            `<Contents><Key>${key}</Key><LastModified>2024-01-31T12:00:00.000Z</LastModified><Size>4</Size></Contents>`,
        ),
      ...page
        .filter((entry) => entry.endsWith('/'))
        .map((folder) => `<CommonPrefixes><Prefix>${folder}</Prefix></CommonPrefixes>`),
      '</ListBucketResult>',
    ].join('');
    response.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    maxKeysSeen: () => [...maxKeys],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
