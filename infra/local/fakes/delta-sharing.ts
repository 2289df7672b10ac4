/**
 * A protocol-level fake of a Delta Sharing server (delta-io PROTOCOL.md) on 127.0.0.1: list
 * shares, schemas and tables in pages (maxResults, pageToken; it never answers more than
 * `pageSize` items, as a server may), table version, metadata and query as NDJSON, with
 * time travel by version or timestamp. Data files are Parquet written by DuckDB
 * (delta-sharing-tables.ts) and served by the fake itself at pre-signed URLs that expire.
 * Recipients authenticate with bearer tokens that may expire, or with tokens issued by an
 * OAuth fake (profiles of shareCredentialsVersion 2). Failures come from real causes: an
 * unknown token is 401, an expired one 401 with RFC 6750's invalid_token, an unknown share,
 * schema or table 404 RESOURCE_DOES_NOT_EXIST; `behave` makes it a broken server.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocally } from './local-server';
import { metaDataOf, writeTables, type FakeTable, type FakeTableSpec, type FakeVersion } from './delta-sharing-tables';

export type { DeltaField, FakeTable, FakeTableSpec } from './delta-sharing-tables';

/**
 * `normal`; `malformed` (200 answers whose body is not the protocol's JSON); `server-error`
 * (500 INTERNAL_ERROR); `hang` (accepts, never answers).
 */
export type DeltaSharingBehaviour = 'normal' | 'malformed' | 'server-error' | 'hang';

/** What the fake asks of an OAuth token service: whether it issued a token. */
export interface TokenIssuer {
  isIssued(token: string): boolean;
}

export interface DeltaSharingFakeOptions {
  readonly tables: readonly FakeTableSpec[];
  /** Most items per list page, whatever maxResults asks for. */
  readonly pageSize?: number;
  /** Life of a pre-signed file URL. */
  readonly urlLifetimeMs?: number;
  /** Whether file actions carry expirationTimestamp (optional in the protocol); true when omitted. */
  readonly advertiseExpiry?: boolean;
  /** Wait before each file's bytes, so that downloads overlap measurably. */
  readonly downloadDelayMs?: number;
  /** Tokens this issuer (the tests' OAuth fake, infra/local/fakes/oauth.ts) issued are accepted too. */
  readonly oauth?: TokenIssuer;
  /** Port to listen on (a free one when omitted): `npm start` keeps its profile endpoint across restarts. */
  readonly port?: number;
}

export interface DeltaSharingFake {
  /** The profile endpoint, http://127.0.0.1:<port>/delta-sharing/. */
  readonly endpoint: string;
  readonly port: number;
  readonly tables: readonly FakeTable[];
  /** API requests received, in order (file downloads are in `downloads`). */
  readonly requests: { readonly method: string; readonly path: string; body?: unknown }[];
  /** File downloads: the file id and the status answered. */
  readonly downloads: { readonly fileId: string; readonly status: number }[];
  /** Most file downloads that were in flight at once. */
  readonly peakConcurrentDownloads: number;
  /** Accepts `token` until `expiresAt` (ms since the epoch; forever when omitted). */
  addToken(token: string, expiresAt?: number): void;
  /** A profile file for `token` (shareCredentialsVersion 1). */
  profile(token: string, expirationTime?: string): string;
  behave(behaviour: DeltaSharingBehaviour): void;
  /** Changes the life of the URLs handed out from now on. */
  setUrlLifetime(ms: number): void;
  close(): Promise<void>;
}

const PREFIX = '/delta-sharing';
const SIGNING_KEY = 'delta-sharing-fake-signing-key';

function answerJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

function failure(response: ServerResponse, status: number, errorCode: string, message: string, headers = {}) {
  answerJson(response, status, { errorCode, message }, headers);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const sign = (fileId: string, expires: number) =>
  createHmac('sha256', SIGNING_KEY).update(`${fileId}\n${expires}`).digest('hex');

/** One page of `items` from the offset a pageToken names; the token of the next page when there is one. */
function page<T>(
  items: readonly T[],
  query: URLSearchParams,
  pageSize: number,
): { items: T[]; nextPageToken?: string } {
  const offset = Number(Buffer.from(query.get('pageToken') ?? '', 'base64url').toString() || '0');
  const asked = query.has('maxResults') ? Number(query.get('maxResults')) : pageSize;
  const size = Math.min(asked, pageSize);
  const end = offset + size;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextPageToken: Buffer.from(String(end)).toString('base64url') } : {}),
  };
}

/** The version a query or version call reads: the latest, the one asked for, or the last committed at a timestamp. */
function versionOf(table: FakeTable, version: unknown, timestamp: unknown): FakeVersion | string {
  const latest = table.written.at(-1)!;
  if (version !== undefined) {
    const found = typeof version === 'number' ? table.written[version] : undefined;
    return (
      found ??
      `Cannot time travel Delta table to version ${String(version)}. Available versions: [0, ${latest.version}].`
    );
  }
  if (timestamp !== undefined) {
    const at = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
    if (Number.isNaN(at)) return `Invalid timestamp ${String(timestamp)}`;
    const found = table.written.filter((candidate) => candidate.timestamp <= at).at(-1);
    return found ?? `The provided timestamp ${String(timestamp)} is before the earliest version available.`;
  }
  return latest;
}

export async function startDeltaSharingFake(options: DeltaSharingFakeOptions): Promise<DeltaSharingFake> {
  const written = await writeTables(options.tables);
  const tables = written.tables;
  const pageSize = options.pageSize ?? 2;
  let urlLifetimeMs = options.urlLifetimeMs ?? 3_600_000;
  const tokens = new Map<string, number | undefined>();
  const requests: DeltaSharingFake['requests'] = [];
  const downloads: DeltaSharingFake['downloads'] = [];
  let behaviour: DeltaSharingBehaviour = 'normal';
  let inFlight = 0;
  let peak = 0;
  let baseUrl = '';

  const shares = () => [...new Set(tables.map((table) => table.share))];
  const fileUrl = (fileId: string) => {
    const expires = Date.now() + urlLifetimeMs;
    return { url: `${baseUrl}/files/${fileId}?expires=${expires}&signature=${sign(fileId, expires)}`, expires };
  };

  /** Whether the request carries a token this server accepts; answers the refusal otherwise. */
  const authenticated = (request: IncomingMessage, response: ServerResponse): boolean => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (token !== undefined && options.oauth?.isIssued(token)) return true;
    if (token === undefined || !tokens.has(token)) {
      failure(response, 401, 'UNAUTHENTICATED', 'The bearer token is missing or incorrect.', {
        'www-authenticate': 'Bearer realm="delta-sharing"',
      });
      return false;
    }
    const expiresAt = tokens.get(token);
    if (expiresAt !== undefined && expiresAt <= Date.now()) {
      failure(response, 401, 'UNAUTHENTICATED', 'The bearer token has expired.', {
        'www-authenticate':
          'Bearer realm="delta-sharing", error="invalid_token", error_description="The access token expired"',
      });
      return false;
    }
    return true;
  };

  const serveFile = async (url: URL, response: ServerResponse) => {
    const fileId = url.pathname.slice('/files/'.length);
    const expires = Number(url.searchParams.get('expires'));
    const signature = Buffer.from(url.searchParams.get('signature') ?? '');
    const expected = Buffer.from(sign(fileId, expires));
    const file = tables
      .flatMap((table) => table.written.flatMap((version) => version.files))
      .find((f) => f.id === fileId);
    let status = 200;
    if (!file || signature.length !== expected.length || !timingSafeEqual(signature, expected)) status = 403;
    else if (expires <= Date.now()) status = 410;
    downloads.push({ fileId, status });
    if (status !== 200 || !file) {
      // As S3 answers a pre-signed URL that is wrong or has expired: 403 with an XML error.
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${
          status === 410 ? 'Request has expired' : 'Signature does not match'
        }</Message></Error>`,
      );
      return;
    }
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    try {
      if (options.downloadDelayMs) await new Promise((resolve) => setTimeout(resolve, options.downloadDelayMs));
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.size) });
      await new Promise<void>((resolve) => {
        const body = createReadStream(file.localPath);
        body.on('error', () => response.destroy());
        response.on('close', () => resolve());
        body.pipe(response);
      });
    } finally {
      inFlight -= 1;
    }
  };

  const ndjson = (response: ServerResponse, version: number, lines: readonly unknown[]) => {
    response.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'delta-table-version': String(version),
    });
    response.end(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  };

  /** Lines of a table that needs reader features: the delta response format, whatever the client asked for. */
  const deltaFormatLines = (table: FakeTable) => [
    { protocol: { deltaProtocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: table.readerFeatures } } },
    { metaData: { deltaMetadata: metaDataOf(table, undefined) } },
  ];

  const serveTable = async (request: IncomingMessage, response: ServerResponse, table: FakeTable, action: string) => {
    if (action === 'version' && request.method === 'GET') {
      const starting = new URL(request.url ?? '', 'http://x').searchParams.get('startingTimestamp');
      const chosen = versionOf(table, undefined, starting ?? undefined);
      if (typeof chosen === 'string') return failure(response, 400, 'INVALID_PARAMETER_VALUE', chosen);
      response.writeHead(200, { 'delta-table-version': String(chosen.version) });
      return response.end();
    }
    if (action === 'metadata' && request.method === 'GET') {
      const latest = table.written.at(-1)!.version;
      if (table.readerFeatures?.length) return ndjson(response, latest, deltaFormatLines(table));
      return ndjson(response, latest, [
        { protocol: { minReaderVersion: 1 } },
        { metaData: metaDataOf(table, undefined) },
      ]);
    }
    if (action === 'query' && request.method === 'POST') {
      const text = await readBody(request);
      let body: Record<string, unknown>;
      try {
        body = text.trim() === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        return failure(response, 400, 'MALFORMED_REQUEST', 'The request body is not JSON.');
      }
      requests.at(-1)!.body = body;
      const chosen = versionOf(table, body.version, body.timestamp);
      if (typeof chosen === 'string') return failure(response, 400, 'INVALID_PARAMETER_VALUE', chosen);
      if (table.readerFeatures?.length) return ndjson(response, chosen.version, deltaFormatLines(table));
      const pinned = body.version !== undefined || body.timestamp !== undefined;
      const files = chosen.files.map((file) => {
        const { url, expires } = fileUrl(file.id);
        return {
          file: {
            url,
            id: file.id,
            partitionValues: file.partitionValues,
            size: file.size,
            ...(options.advertiseExpiry === false ? {} : { expirationTimestamp: expires }),
            ...(pinned ? { version: chosen.version, timestamp: chosen.timestamp } : {}),
          },
        };
      });
      return ndjson(response, chosen.version, [
        { protocol: { minReaderVersion: 1 } },
        { metaData: metaDataOf(table, pinned ? chosen.version : undefined) },
        ...files,
      ]);
    }
    return failure(response, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here`);
  };

  const notFound = (response: ServerResponse, what: string) =>
    failure(response, 404, 'RESOURCE_DOES_NOT_EXIST', `${what} does not exist.`);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', baseUrl);
    if (url.pathname.startsWith('/files/')) return serveFile(url, response);
    requests.push({ method: request.method ?? '', path: url.pathname + url.search });
    if (behaviour === 'hang') return;
    if (behaviour === 'server-error') return failure(response, 500, 'INTERNAL_ERROR', 'Internal server error.');
    if (!url.pathname.startsWith(`${PREFIX}/shares`)) return failure(response, 404, 'NOT_FOUND', 'No such API.');
    if (!authenticated(request, response)) return;
    if (behaviour === 'malformed') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end('{"items": [{"name": "partner"');
    }
    const segments = url.pathname
      .slice(PREFIX.length + 1)
      .split('/')
      .map(decodeURIComponent);
    const [, share, level, schema, tablesLevel, tableName, action] = segments;
    if (segments.length === 1)
      return answerJson(
        response,
        200,
        page(
          shares().map((name) => ({ name })),
          url.searchParams,
          pageSize,
        ),
      );
    const shareName = shares().find((name) => sameName(name, share!));
    if (!shareName) return notFound(response, `Share ${share}`);
    const ofShare = tables.filter((table) => table.share === shareName);
    if (segments.length === 2) return answerJson(response, 200, { share: { name: shareName } });
    const tableItem = (table: FakeTable) => ({
      name: table.name,
      schema: table.schema,
      share: table.share,
      id: table.id,
    });
    if (segments.length === 3 && level === 'all-tables')
      return answerJson(response, 200, page(ofShare.map(tableItem), url.searchParams, pageSize));
    if (level !== 'schemas') return notFound(response, url.pathname);
    if (segments.length === 3) {
      const schemas = [...new Set(ofShare.map((table) => table.schema))].map((name) => ({ name, share: shareName }));
      return answerJson(response, 200, page(schemas, url.searchParams, pageSize));
    }
    const ofSchema = ofShare.filter((table) => sameName(table.schema, schema!));
    if (ofSchema.length === 0) return notFound(response, `Schema ${shareName}.${schema}`);
    if (tablesLevel !== 'tables') return notFound(response, url.pathname);
    if (segments.length === 5)
      return answerJson(response, 200, page(ofSchema.map(tableItem), url.searchParams, pageSize));
    const table = ofSchema.find((candidate) => sameName(candidate.name, tableName!));
    if (!table) return notFound(response, `Table ${shareName}.${schema}.${tableName}`);
    if (segments.length === 7) return serveTable(request, response, table, action!);
    return notFound(response, url.pathname);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => failure(response, 500, 'INTERNAL_ERROR', 'Internal server error.'));
  });
  const listening = await listenLocally(server, options.port);
  baseUrl = `http://127.0.0.1:${listening.port}`;
  const endpoint = `${baseUrl}${PREFIX}/`;
  return {
    endpoint,
    port: listening.port,
    tables,
    requests,
    downloads,
    get peakConcurrentDownloads() {
      return peak;
    },
    addToken(token, expiresAt) {
      tokens.set(token, expiresAt);
    },
    profile(token, expirationTime) {
      return JSON.stringify({
        shareCredentialsVersion: 1,
        endpoint,
        bearerToken: token,
        ...(expirationTime ? { expirationTime } : {}),
      });
    },
    behave(next) {
      behaviour = next;
    },
    setUrlLifetime(ms) {
      urlLifetimeMs = ms;
    },
    async close() {
      await listening.close();
      await written.remove();
    },
  };
}
