/**
 * A paging, trickling and stalling S3-compatible store for object-store-source.test.ts: what s3rver
 * cannot do (its continuation tokens use DES, which OpenSSL 3 refuses).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An object of the fake store, and how its body is sent. */
export interface FakeObject {
  readonly body: Buffer;
  /** trickle: 12 chunks 100 ms apart; stall: the first chunk, then nothing. */
  readonly pace?: 'trickle' | 'stall';
}

/** A running fake store: its address, its objects, and how many listings it answered. */
export interface FakeStore {
  readonly endpoint: string;
  readonly port: number;
  readonly objects: Readonly<Record<string, FakeObject>>;
  readonly listings: () => number;
  close(): Promise<void>;
}

/**
 * One bucket of an S3-compatible store on 127.0.0.1: ListObjectsV2 (prefix, delimiter, pages
 * of at most two entries, as a store may return fewer than asked) and GetObject.
 */
export async function fakeStore(bucket: string, objects: Record<string, FakeObject>): Promise<FakeStore> {
  let listings = 0;
  const keys = Object.keys(objects).sort();
  const server: Server = createServer((request, response) => {
    request.resume();
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, requestedBucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (requestedBucket !== bucket) return xml(response, 404, '<Error><Code>NoSuchBucket</Code></Error>');
    if (key === '') {
      listings += 1;
      return xml(response, 200, listing(bucket, keys, objects, url.searchParams));
    }
    const object = objects[key];
    if (!object) return xml(response, 404, '<Error><Code>NoSuchKey</Code></Error>');
    response.writeHead(200, {
      'content-type': 'text/csv',
      'content-length': object.body.length,
      'last-modified': new Date(0).toUTCString(),
    });
    if (!object.pace) return response.end(object.body);
    const chunk = Math.ceil(object.body.length / 12);
    let sent = 0;
    const send = () => {
      response.write(object.body.subarray(sent, sent + chunk));
      sent += chunk;
      if (sent >= object.body.length) return response.end();
      if (object.pace === 'trickle') timer = setTimeout(send, 100);
    };
    let timer = setTimeout(send, 0);
    response.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    objects,
    listings: () => listings,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function xml(response: ServerResponse, status: number, body: string) {
  const text = `<?xml version="1.0" encoding="UTF-8"?>${body}`;
  response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function listing(
  bucket: string,
  keys: readonly string[],
  objects: Record<string, FakeObject>,
  query: URLSearchParams,
): string {
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const entries = new Map<string, boolean>();
  for (const key of keys.filter((candidate) => candidate.startsWith(prefix))) {
    const cut = delimiter === '' ? -1 : key.indexOf(delimiter, prefix.length);
    entries.set(cut === -1 ? key : key.slice(0, cut + 1), cut !== -1);
  }
  const all = [...entries.keys()].sort();
  const start = Number(query.get('continuation-token') ?? '0');
  const page = all.slice(start, start + Math.min(2, Number(query.get('max-keys') ?? '1000')));
  const truncated = start + page.length < all.length;
  const contents = page
    .filter((entry) => !entries.get(entry))
    .map(
      (key) =>
        `<Contents><Key>${key}</Key><LastModified>1970-01-01T00:00:00.000Z</LastModified><Size>${objects[key]!.body.length}</Size></Contents>`,
    );
  const prefixes = page
    .filter((entry) => entries.get(entry))
    .map((entry) => `<CommonPrefixes><Prefix>${entry}</Prefix></CommonPrefixes>`);
  return [
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${prefix}</Prefix>`,
    `<KeyCount>${page.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>`,
    truncated ? `<NextContinuationToken>${start + page.length}</NextContinuationToken>` : '',
    ...contents,
    ...prefixes,
    '</ListBucketResult>',
  ].join('');
}
