import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { S3_BUCKETS, assertWithin, parseBucketLocation, shownPath } from '../bucket-location';
import type { FetchedFile, FetchedSource, FetchOptions, FetchProgress } from '../source';
import { objectStoreClient } from './client';
import { parseObjectStoreEndpoint } from './endpoint';
import { objectStoreError } from './errors';

export interface ObjectStoreSourceInput {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly pathRestriction: string | null | undefined;
  /** The data source's path: "<bucket>", "<bucket>/<folder>/" or "<bucket>/<key>". */
  readonly path: string;
}

/** Downloads in flight at once: hides per-object latency without hammering the user's store. */
const CONCURRENCY = 4;
/** Least time between two progress reports while bytes flow; each finished file reports at once. */
const PROGRESS_INTERVAL_MS = 250;
const CSV = /\.csv$/i;

interface Target {
  readonly bucket: string;
  /** The folder to read: "" (the whole bucket) or a prefix ending in "/". */
  readonly folder: string;
  /** The exact key the path may name, when it has no trailing slash. */
  readonly key: string | undefined;
  /** The path as named, normalised, for messages. */
  readonly shown: string;
}

function targetOf(path: string, pathRestriction: string | null | undefined): Target {
  const location = parseBucketLocation(path, S3_BUCKETS);
  const key = location.prefix === '' || path.trim().endsWith('/') ? undefined : location.prefix.slice(0, -1);
  const shown = shownPath(path, location);
  if (!pathRestriction) return { bucket: location.bucket, folder: location.prefix, key, shown };
  const restriction = parseBucketLocation(pathRestriction, S3_BUCKETS);
  assertWithin(location, restriction, S3_BUCKETS, shown);
  // "demo/sales" under the restriction "demo/sales/" can only mean that folder: an object
  // with the key "sales" lies outside it.
  return { bucket: location.bucket, folder: location.prefix, key: key?.startsWith(restriction.prefix) ? key : undefined, shown };
}

/**
 * Reads a bucket data source into `options.workDir`: one CSV object, or every CSV object
 * below a folder at any depth. Store failures map to 30-11xx; an abort through
 * `options.signal` rethrows the signal's reason, since only the caller knows what it means.
 */
export async function fetchObjectStoreSource(input: ObjectStoreSourceInput, options: FetchOptions): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const endpoint = parseObjectStoreEndpoint(input.endpoint);
  const target = targetOf(input.path, input.pathRestriction);
  const timeoutMs = config.connectorTimeoutMs;
  const client = objectStoreClient(endpoint, { accessKeyId: input.accessKeyId, secretAccessKey: input.secretAccessKey }, timeoutMs);
  try {
    const keys = await csvKeys(client, target, options.signal, timeoutMs);
    return await downloadAll(client, target.bucket, keys, options, timeoutMs);
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    throw objectStoreError(error, target.bucket);
  } finally {
    client.destroy();
  }
}

/**
 * A listing is a small response read whole, so it gets a total bound on top of the caller's
 * signal (two attempts of the connector timeout, as in the connection test).
 */
function listingSignal(signal: AbortSignal, timeoutMs: number): { abortSignal: AbortSignal } {
  return { abortSignal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs * 2)]) };
}

async function csvKeys(client: S3Client, target: Target, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  if (target.key !== undefined && (await objectExists(client, target.bucket, target.key, listingSignal(signal, timeoutMs)))) {
    if (!CSV.test(target.key)) throw new AppError('10-1000', { extraDetails: { path: target.shown } });
    return [target.key];
  }
  let keysSeen = 0;
  const csv: string[] = [];
  let token: string | undefined;
  do {
    // No delimiter: every key below the folder, at any depth.
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: target.bucket, Prefix: target.folder || undefined, ContinuationToken: token }),
      listingSignal(signal, timeoutMs),
    );
    for (const { Key: key } of page.Contents ?? []) {
      if (key === undefined) continue;
      keysSeen += 1;
      // Folder markers ("x/") and files of other types are not data.
      if (!key.endsWith('/') && CSV.test(key)) csv.push(key);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  // An empty bucket exists (a missing one fails as NoSuchBucket); an empty prefix does not.
  if (keysSeen === 0 && target.folder !== '') throw new AppError('30-1114', { params: [target.shown] });
  if (csv.length === 0) throw new AppError('30-1118');
  // S3's order (UTF-8 bytes), which not every store keeps: the same source always yields the same file order.
  return csv.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * Whether an object has exactly this key. A listing rather than HeadObject, because a HEAD
 * failure has no body: a missing bucket or refused credentials would lose their codes. The
 * delimiter folds everything under "<key>/" into one prefix, so the page stays small; the
 * whole page is searched because not every store lists in S3's binary key order (s3rver
 * does not).
 */
async function objectExists(client: S3Client, bucket: string, key: string, options: { abortSignal: AbortSignal }): Promise<boolean> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, Delimiter: '/' }), options);
  return (page.Contents ?? []).some((object) => object.Key === key);
}

class ProgressReporter {
  bytesRead = 0;
  private filesDone = 0;
  private reportedAt = 0;

  constructor(
    private readonly filesTotal: number,
    private readonly onProgress: (progress: FetchProgress) => void,
  ) {
    this.report();
  }

  bytes(count: number): void {
    this.bytesRead += count;
    if (performance.now() - this.reportedAt >= PROGRESS_INTERVAL_MS) this.report();
  }

  fileDone(): void {
    this.filesDone += 1;
    this.report();
  }

  private report(): void {
    this.reportedAt = performance.now();
    this.onProgress({ bytesRead: this.bytesRead, filesDone: this.filesDone, filesTotal: this.filesTotal });
  }
}

/**
 * Downloads the keys with bounded concurrency. The first failure stops the other downloads
 * and is the one reported (the others then fail only because they were stopped).
 */
async function downloadAll(client: S3Client, bucket: string, keys: readonly string[], options: FetchOptions, timeoutMs: number): Promise<FetchedSource> {
  const progress = new ProgressReporter(keys.length, options.onProgress);
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const files: FetchedFile[] = [];
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    try {
      while (next < keys.length) {
        // Between two files as well: a stop must never look like a complete read.
        signal.throwIfAborted();
        const index = next++;
        const key = keys[index]!;
        // Local names are ours: a key is user data and must not become a path.
        const localPath = join(options.workDir, `${String(index + 1).padStart(5, '0')}.csv`);
        const bytes = await downloadObject(client, bucket, key, localPath, signal, timeoutMs, (count) => progress.bytes(count));
        files[index] = { source: `${bucket}/${key}`, localPath, bytes };
        progress.fileDone();
      }
    } catch (error) {
      failures.push(error);
      stop.abort();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, keys.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return { files, bytesRead: progress.bytesRead };
}

async function downloadObject(
  client: S3Client,
  bucket: string,
  key: string,
  localPath: string,
  signal: AbortSignal,
  idleMs: number,
  onBytes: (count: number) => void,
): Promise<number> {
  // No total bound here: a large file may take as long as its bytes keep flowing.
  const { Body: body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
  if (!(body instanceof Readable)) throw new Error('GetObject returned no readable body');
  let bytes = 0;
  const counted = (count: number) => {
    bytes += count;
    onBytes(count);
  };
  const file = createWriteStream(localPath, { flags: 'wx' });
  let localFailure: unknown;
  file.once('error', (error) => {
    localFailure = error;
  });
  try {
    await pipeline(body, idleGuard(idleMs, counted), file, { signal });
  } catch (error) {
    // A full or unwritable disk is ours, not the store's.
    if (error === localFailure) throw new AppError('10-500', { cause: error });
    throw error;
  }
  return bytes;
}

/**
 * Passes a body through, counting its bytes, and fails it with a TimeoutError (30-1110) when
 * no byte arrives for `idleMs`. The client's requestTimeout does not cover a body: in
 * @smithy/node-http-handler 4.x it is a deadline for the response headers, cleared once they
 * arrive, and the client sets no socket timeout, so a store that stalls mid-body would hold
 * the import until the job's inactivity limit.
 */
function idleGuard(idleMs: number, onChunk: (count: number) => void): Transform {
  const guard: Transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      timer.refresh();
      onChunk(chunk.length);
      callback(null, chunk);
    },
    flush(callback) {
      clearTimeout(timer);
      callback();
    },
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
  const timer = setTimeout(() => {
    guard.destroy(Object.assign(new Error(`no bytes received for ${idleMs} ms`), { name: 'TimeoutError' }));
  }, idleMs);
  return guard;
}
