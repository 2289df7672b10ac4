/**
 * A protocol-level fake of Google Cloud Storage's JSON API on 127.0.0.1, as
 * @google-cloud/storage 7 speaks it: buckets.list and buckets.get, objects.list (prefix,
 * delimiter, pageToken, maxResults counting objects and prefixes together), objects.get
 * (metadata, or the bytes with ?alt=media and the x-goog-hash header the SDK checks), and
 * uploads (uploadType media, multipart and resumable, in chunks or whole: gcs-uploads.ts), objects.rewrite
 * (done in one call) and objects.delete. The Google token
 * services (google-auth.ts) are mounted on the same server. Permissions are per service
 * account: bucket readers and writers, and project-level bucket listing. `inject` makes the
 * next matching requests fail as GCS does (429 rate limit, 503, a silent server, a body
 * that stalls).
 */
import { randomBytes, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CRC32C } from '@google-cloud/storage';
import { GcsUploads } from './gcs-uploads';
import { GoogleAuthFake, apiError, sendJson } from './google-auth';
import { freeLocalPort, listenLocally, type Listening } from '../../infra/local/fakes/local-server';

export type Access = 'reader' | 'writer';

export interface BucketOptions {
  readonly project: string;
  /** Service-account e-mail → what it may do in the bucket. */
  readonly grants?: Readonly<Record<string, Access>>;
  readonly objects?: Readonly<Record<string, string | Uint8Array>>;
}

/** rate-limit: 429; unavailable: 503 backendError; gone: 404 as for an object deleted meanwhile; hang: no answer; stall: half the body, then silence. */
export type Failure = 'rate-limit' | 'unavailable' | 'gone' | 'hang' | 'stall';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly principal: string | undefined;
}

interface StoredObject {
  readonly data: Buffer;
  readonly contentType: string;
  readonly generation: string;
  readonly updated: string;
}

interface Bucket {
  readonly project: string;
  readonly grants: Map<string, Access>;
  readonly objects: Map<string, StoredObject>;
}

interface Injection {
  readonly method: string | undefined;
  readonly path: RegExp;
  readonly failure: Failure;
  remaining: number;
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Base64 of the big-endian CRC32C, as GCS reports it. */
function crc32c(data: Buffer): string {
  const checksum = new CRC32C();
  checksum.update(data);
  return checksum.toString();
}

export class GcsFake {
  readonly auth: GoogleAuthFake;
  readonly requests: RecordedRequest[] = [];
  private readonly buckets = new Map<string, Bucket>();
  /** Project → service accounts that may list its buckets. */
  private readonly listers = new Map<string, Set<string>>();
  private readonly uploads: GcsUploads;
  private readonly injections: Injection[] = [];
  private listening: Listening | undefined;
  private readonly server = createServer((request, response) => void this.serve(request, response));

  private constructor(readonly port: number) {
    this.auth = new GoogleAuthFake(this.endpoint);
    this.uploads = new GcsUploads(this.endpoint, (bucket, name, data, contentType) =>
      this.resource(bucket, name, this.put(bucket, name, data, contentType)),
    );
  }

  static async start(): Promise<GcsFake> {
    const fake = new GcsFake(await freeLocalPort());
    fake.listening = await listenLocally(fake.server, fake.port);
    return fake;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The settings that point the connectors at this fake, and let the outbound guard reach it. */
  get environment(): Record<string, string> {
    return {
      GCS_API_ENDPOINT: this.endpoint,
      GOOGLE_STS_ENDPOINT: `${this.endpoint}/v1/token`,
      GOOGLE_IAM_CREDENTIALS_ENDPOINT: this.endpoint,
    };
  }

  get allowOutbound(): string {
    return `127.0.0.1:${this.port}`;
  }

  addBucket(name: string, options: BucketOptions): void {
    const objects = new Map<string, StoredObject>();
    this.buckets.set(name, {
      project: options.project,
      grants: new Map(Object.entries(options.grants ?? {})),
      objects,
    });
    for (const [key, data] of Object.entries(options.objects ?? {})) this.put(name, key, Buffer.from(data), 'text/csv');
  }

  /** Lets a service account list the project's buckets. */
  allowBucketListing(project: string, email: string): void {
    this.listers.set(project, new Set([...(this.listers.get(project) ?? []), email]));
  }

  object(bucket: string, key: string): Buffer | undefined {
    return this.buckets.get(bucket)?.objects.get(key)?.data;
  }

  /** The names of a bucket's objects, in name order. */
  keys(bucket: string): string[] {
    return [...(this.buckets.get(bucket)?.objects.keys() ?? [])].sort(byBytes);
  }

  /** The next `times` (1) requests whose path and query match `path` fail with `failure`. */
  inject(failure: Failure, path: RegExp, options: { method?: string; times?: number } = {}): void {
    this.injections.push({ method: options.method, path, failure, remaining: options.times ?? 1 });
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }

  private put(bucket: string, name: string, data: Buffer, contentType: string): StoredObject {
    const stored = {
      data,
      contentType,
      generation: String(Date.now() * 1000 + this.requests.length),
      updated: new Date().toISOString(),
    };
    this.buckets.get(bucket)!.objects.set(name, stored);
    return stored;
  }

  private resource(bucket: string, name: string, object: StoredObject) {
    return {
      kind: 'storage#object',
      id: `${bucket}/${name}/${object.generation}`,
      name,
      bucket,
      generation: object.generation,
      metageneration: '1',
      contentType: object.contentType,
      storageClass: 'STANDARD',
      size: String(object.data.length),
      md5Hash: createHash('md5').update(object.data).digest('base64'),
      crc32c: crc32c(object.data),
      etag: randomBytes(6).toString('base64'),
      timeCreated: object.updated,
      updated: object.updated,
    };
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? '/', this.endpoint);
      const method = request.method ?? 'GET';
      const body = await readBody(request);
      const principal = this.auth.principalOf(request.headers.authorization);
      this.requests.push({ method, path: url.pathname, query: url.searchParams, principal });
      const injected = this.injections.find(
        (candidate) =>
          candidate.remaining > 0 &&
          (!candidate.method || candidate.method === method) &&
          candidate.path.test(`${url.pathname}${url.search}`),
      );
      if (injected) injected.remaining -= 1;
      if (injected?.failure === 'hang') return;
      if (injected?.failure === 'rate-limit')
        return apiError(
          response,
          429,
          'rateLimitExceeded',
          'The project exceeded the rate limit for CloudStorage and this operation.',
          'RESOURCE_EXHAUSTED',
        );
      if (injected?.failure === 'unavailable')
        return apiError(response, 503, 'backendError', 'Backend Error', 'UNAVAILABLE');
      if (injected?.failure === 'gone')
        return apiError(response, 404, 'notFound', `No such object: ${decodeURIComponent(url.pathname)}`, 'NOT_FOUND');
      if (this.auth.handle(method, url.pathname, request.headers, body.toString('utf8'), response)) return;
      if (!principal)
        return apiError(
          response,
          401,
          'required',
          'Anonymous caller does not have storage.objects.list access to the Google Cloud Storage bucket.',
          'UNAUTHENTICATED',
        );
      this.route(method, url, body, principal, request, response, injected?.failure === 'stall');
    } catch (error) {
      apiError(response, 500, 'backendError', `fake failure: ${String(error)}`, 'INTERNAL');
    }
  }

  private route(
    method: string,
    url: URL,
    body: Buffer,
    principal: string,
    request: IncomingMessage,
    response: ServerResponse,
    stall: boolean,
  ): void {
    const path = url.pathname;
    const query = url.searchParams;
    if (method === 'GET' && path === '/storage/v1/b') return this.listBuckets(query, principal, response);
    const rewrite = /^\/storage\/v1\/b\/([^/]+)\/o\/([^/]+)\/rewriteTo\/b\/([^/]+)\/o\/([^/]+)$/.exec(path);
    if (method === 'POST' && rewrite)
      return this.rewrite(
        rewrite.slice(1).map(decodeURIComponent) as [string, string, string, string],
        principal,
        response,
      );
    const api = /^\/storage\/v1\/b\/([^/]+)(\/o(?:\/(.+))?)?$/.exec(path);
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(path);
    const bucketName = decodeURIComponent((api ?? upload)?.[1] ?? '');
    const bucket = this.buckets.get(bucketName);
    if (!api && !upload) return apiError(response, 404, 'notFound', 'Not Found', 'NOT_FOUND');
    if (!bucket) return apiError(response, 404, 'notFound', 'The specified bucket does not exist.', 'NOT_FOUND');
    const access = bucket.grants.get(principal);
    const denied = (permission: string) =>
      apiError(
        response,
        403,
        'forbidden',
        `${principal} does not have ${permission} access to the Google Cloud Storage bucket. Permission '${permission}' denied on resource (or it may not exist).`,
        'PERMISSION_DENIED',
      );
    if (upload) {
      if (access !== 'writer') return denied('storage.objects.create');
      return this.uploads.handle(method, bucketName, query, body, request, response);
    }
    const objects = api![2] !== undefined;
    const encodedName = api![3];
    if (method === 'DELETE' && encodedName !== undefined) {
      if (access !== 'writer') return denied('storage.objects.delete');
      const name = decodeURIComponent(encodedName);
      if (!bucket.objects.delete(name))
        return apiError(response, 404, 'notFound', `No such object: ${bucketName}/${name}`, 'NOT_FOUND');
      response.writeHead(204);
      return void response.end();
    }
    if (method !== 'GET') return apiError(response, 405, 'methodNotAllowed', 'Method not allowed', 'INVALID_ARGUMENT');
    if (!access)
      return denied(
        encodedName !== undefined ? 'storage.objects.get' : objects ? 'storage.objects.list' : 'storage.buckets.get',
      );
    if (!objects)
      return sendJson(response, 200, {
        kind: 'storage#bucket',
        id: bucketName,
        name: bucketName,
        projectNumber: '123456789',
        location: 'US',
        storageClass: 'STANDARD',
      });
    if (encodedName === undefined) return this.listObjects(bucketName, bucket, query, response);
    const name = decodeURIComponent(encodedName);
    const object = bucket.objects.get(name);
    if (!object) return apiError(response, 404, 'notFound', `No such object: ${bucketName}/${name}`, 'NOT_FOUND');
    if (query.get('alt') !== 'media') return sendJson(response, 200, this.resource(bucketName, name, object));
    const hashes = this.resource(bucketName, name, object);
    response.writeHead(200, {
      'content-type': object.contentType,
      'content-length': String(object.data.length),
      'x-goog-hash': `crc32c=${hashes.crc32c},md5=${hashes.md5Hash}`,
      'x-goog-stored-content-encoding': 'identity',
      'x-goog-generation': object.generation,
    });
    if (stall) response.write(object.data.subarray(0, Math.floor(object.data.length / 2)));
    else response.end(object.data);
  }

  /** objects.rewrite of one object to another name, finished in one call (done: true), as GCS does within a location. */
  private rewrite(
    [from, source, to, destination]: [string, string, string, string],
    principal: string,
    response: ServerResponse,
  ): void {
    const [origin, target] = [this.buckets.get(from), this.buckets.get(to)];
    if (!origin || !target)
      return apiError(response, 404, 'notFound', 'The specified bucket does not exist.', 'NOT_FOUND');
    if (!origin.grants.get(principal) || target.grants.get(principal) !== 'writer')
      return apiError(
        response,
        403,
        'forbidden',
        `${principal} does not have storage.objects.create access to the Google Cloud Storage bucket.`,
        'PERMISSION_DENIED',
      );
    const object = origin.objects.get(source);
    if (!object) return apiError(response, 404, 'notFound', `No such object: ${from}/${source}`, 'NOT_FOUND');
    const size = String(object.data.length);
    const copied = this.put(to, destination, object.data, object.contentType);
    sendJson(response, 200, {
      kind: 'storage#rewriteResponse',
      totalBytesRewritten: size,
      objectSize: size,
      done: true,
      resource: this.resource(to, destination, copied),
    });
  }

  private listBuckets(query: URLSearchParams, principal: string, response: ServerResponse): void {
    const project = query.get('project') ?? '';
    const known = [...this.buckets.values()].some((bucket) => bucket.project === project) || this.listers.has(project);
    if (!known) return apiError(response, 400, 'invalid', `Unknown project id: ${project}`, 'INVALID_ARGUMENT');
    if (!this.listers.get(project)?.has(principal)) {
      return apiError(
        response,
        403,
        'forbidden',
        `${principal} does not have storage.buckets.list access to the Google Cloud project.`,
        'PERMISSION_DENIED',
      );
    }
    const names = [...this.buckets.entries()].filter(([, bucket]) => bucket.project === project).map(([name]) => name);
    const max = Number(query.get('maxResults') ?? 1000);
    sendJson(response, 200, {
      kind: 'storage#buckets',
      items: names.slice(0, max).map((name) => ({ kind: 'storage#bucket', id: name, name })),
    });
  }

  private listObjects(bucketName: string, bucket: Bucket, query: URLSearchParams, response: ServerResponse): void {
    const prefix = query.get('prefix') ?? '';
    const delimiter = query.get('delimiter') ?? '';
    const max = Math.min(Number(query.get('maxResults') ?? 1000), 1000);
    const after = query.has('pageToken')
      ? Buffer.from(query.get('pageToken')!, 'base64url').toString('utf8')
      : undefined;
    // Entries in name order: objects, and with a delimiter the folders that fold the rest.
    const entries = new Map<string, { prefix: boolean }>();
    for (const name of [...bucket.objects.keys()].sort(byBytes)) {
      if (!name.startsWith(prefix)) continue;
      const cut = delimiter === '' ? -1 : name.indexOf(delimiter, prefix.length);
      entries.set(cut === -1 ? name : name.slice(0, cut + delimiter.length), { prefix: cut !== -1 });
    }
    const ordered = [...entries.entries()].filter(([name]) => after === undefined || byBytes(name, after) > 0);
    const page = ordered.slice(0, max);
    const items = page
      .filter(([, entry]) => !entry.prefix)
      .map(([name]) => this.resource(bucketName, name, bucket.objects.get(name)!));
    const prefixes = page.filter(([, entry]) => entry.prefix).map(([name]) => name);
    const last = page.at(-1)?.[0];
    sendJson(response, 200, {
      kind: 'storage#objects',
      ...(items.length > 0 ? { items } : {}),
      ...(prefixes.length > 0 ? { prefixes } : {}),
      ...(ordered.length > max && last !== undefined ? { nextPageToken: Buffer.from(last).toString('base64url') } : {}),
    });
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
