import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dataFileExtension } from '../engine/file-signatures';
import { AppError } from '../errors/app-error';
import { assertWithin, parseBucketLocation, shownPath, type BucketRules } from './bucket-location';
import type { FetchedFile, FetchedSource, FetchOptions, FetchProgress } from './source-types';

/**
 * What every bucket store's reader shares (object_store, cloud_store): which objects a data
 * source's path names, and downloading them into the work folder with bounded concurrency,
 * progress reports and an idle bound on each body. Each store brings its own listing and
 * download calls and its own error codes.
 */

/** Downloads in flight at once: hides per-object latency without hammering the user's store. */
const CONCURRENCY = 4;
/** Least time between two progress reports while bytes flow; each finished file reports at once. */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Objects an import reads: what the engine loads (file-signatures.ts: CSV, gzip-compressed
 * CSV, Parquet, JSON Lines), told by the key's extension.
 */
export const DATA_FILE = { test: (key: string): boolean => dataFileExtension(key) !== undefined };

export interface BucketTarget {
  readonly bucket: string;
  /** The folder to read: "" (the whole bucket) or a prefix ending in "/". */
  readonly folder: string;
  /** The exact key the path may name, when it has no trailing slash. */
  readonly key: string | undefined;
  /** The path as named, normalised, for messages. */
  readonly shown: string;
}

/**
 * What a data source's path names, inside the connection's restriction (the store's
 * out-of-bounds code otherwise): a folder, and possibly an object of that exact key.
 */
export function bucketTarget(
  path: string,
  pathRestriction: string | null | undefined,
  rules: BucketRules,
): BucketTarget {
  const location = parseBucketLocation(path, rules);
  const key = location.prefix === '' || path.trim().endsWith('/') ? undefined : location.prefix.slice(0, -1);
  const shown = shownPath(path, location);
  if (!pathRestriction) return { bucket: location.bucket, folder: location.prefix, key, shown };
  const restriction = parseBucketLocation(pathRestriction, rules);
  assertWithin(location, restriction, rules, shown);
  // "demo/sales" under the restriction "demo/sales/" can only mean that folder: an object
  // with the key "sales" lies outside it.
  return {
    bucket: location.bucket,
    folder: location.prefix,
    key: key?.startsWith(restriction.prefix) ? key : undefined,
    shown,
  };
}

/** Keys in the store's order (UTF-8 bytes), which not every store keeps: the same source always yields the same file order. */
export function byteOrder(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
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

/** Opens one object's body; a stop through `signal` must end it. */
export type OpenBody = (key: string, signal: AbortSignal) => Promise<Readable>;

/**
 * Downloads the keys with bounded concurrency into `options.workDir`. The first failure stops
 * the other downloads and is the one reported (the others then fail only because they were
 * stopped); the caller maps it to its store's code.
 */
export async function downloadAll(
  bucket: string,
  keys: readonly string[],
  options: FetchOptions,
  idleMs: number,
  open: OpenBody,
): Promise<FetchedSource> {
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
        // Local names are ours: a key is user data and must not become a path. They keep the
        // key's data file extension, which tells the engine the format (and DuckDB the compression).
        const localPath = join(
          options.workDir,
          `${String(index + 1).padStart(5, '0')}${dataFileExtension(key) ?? '.csv'}`,
        );
        const bytes = await writeBody(await open(key, signal), localPath, signal, idleMs, (count) =>
          progress.bytes(count),
        );
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

async function writeBody(
  body: Readable,
  localPath: string,
  signal: AbortSignal,
  idleMs: number,
  onBytes: (count: number) => void,
): Promise<number> {
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
    // No total bound: a large file may take as long as its bytes keep flowing.
    await pipeline(body, idleGuard(idleMs, counted), file, { signal });
  } catch (error) {
    // A full or unwritable disk is ours, not the store's.
    if (error === localFailure) throw new AppError('10-500', { cause: error });
    throw error;
  }
  return bytes;
}

/**
 * Passes a body through, counting its bytes, and fails it with a TimeoutError when no byte
 * arrives for `idleMs`. The SDKs' request timeouts do not cover a body (they bound the wait
 * for the response headers), so a store that stalls mid-body would otherwise hold the import
 * until the job's inactivity limit.
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
