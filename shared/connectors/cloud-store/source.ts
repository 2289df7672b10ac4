import type { Readable } from 'node:stream';
import type { Bucket } from '@google-cloud/storage';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { DATA_FILE, bucketTarget, byteOrder, downloadAll, type BucketTarget } from '../bucket-download';
import { GCS_BUCKETS } from '../bucket-location';
import type { GoogleCredentials } from '../cloud/token';
import type { FetchedSource, FetchOptions } from '../source-types';
import { openCloudStore } from './client';
import { cloudStoreError, type CloudStoreOperation } from './errors';
import { listPage, untilAborted } from './listing';

export interface CloudStoreSourceInput {
  readonly credentials: GoogleCredentials;
  readonly pathRestriction: string | null | undefined;
  /** The data source's path: "<bucket>", "<bucket>/<folder>/" or "<bucket>/<key>". */
  readonly path: string;
}

/**
 * Reads a bucket data source of a cloud_store connection into `options.workDir`: one data
 * file, or every data file below a folder at any depth. Failures map to 30-13xx; an abort
 * through `options.signal` rethrows the signal's reason, since only the caller knows what it
 * means.
 */
export async function fetchCloudStoreSource(
  input: CloudStoreSourceInput,
  options: FetchOptions,
): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const target = bucketTarget(input.path, input.pathRestriction, GCS_BUCKETS);
  const timeoutMs = config.connectorTimeoutMs;
  let operation: CloudStoreOperation = 'list';
  try {
    const { storage } = await openCloudStore(input.credentials, { timeoutMs, signal: options.signal });
    const bucket = storage.bucket(target.bucket);
    const keys = await dataKeys(bucket, target, options.signal);
    operation = 'download';
    return await downloadAll(target.bucket, keys, options, timeoutMs, (key, signal) => openObject(bucket, key, signal));
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    throw cloudStoreError(error, { operation, bucket: target.bucket, path: target.shown });
  }
}

async function dataKeys(bucket: Bucket, target: BucketTarget, signal: AbortSignal): Promise<string[]> {
  if (target.key !== undefined && (await objectExists(bucket, target.key, signal))) {
    if (!DATA_FILE.test(target.key)) throw new AppError('10-1000', { extraDetails: { path: target.shown } });
    return [target.key];
  }
  let keysSeen = 0;
  const found: string[] = [];
  let pageToken: string | undefined;
  do {
    // No delimiter: every object below the folder, at any depth.
    const page = await listPage(bucket, { prefix: target.folder, pageToken }, signal);
    for (const { name } of page.items) {
      keysSeen += 1;
      // Folder markers ("x/") and files of other types are not data.
      if (!name.endsWith('/') && DATA_FILE.test(name)) found.push(name);
    }
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  // An empty bucket exists (a missing one fails with 404); an empty prefix does not.
  if (keysSeen === 0 && target.folder !== '') throw new AppError('30-1305', { params: [target.shown] });
  if (found.length === 0) throw new AppError('30-1310');
  return byteOrder(found);
}

/** Whether an object has exactly this key (objects.get metadata; 404 when there is none). */
async function objectExists(bucket: Bucket, key: string, signal: AbortSignal): Promise<boolean> {
  try {
    await untilAborted(bucket.file(key).getMetadata(), signal);
    return true;
  } catch (error) {
    // A missing bucket is 404 too: the folder listing that follows reports it.
    if ((error as { code?: unknown }).code === 404) return false;
    throw error;
  }
}

/**
 * Starts one download and answers its body once the store has answered. The SDK checks the
 * body against the CRC32C the store sends (x-goog-hash) and fails the stream on a mismatch.
 * A refusal of this object (one deleted since the listing, say) names it.
 */
function openObject(bucket: Bucket, key: string, signal: AbortSignal): Promise<Readable> {
  const body = bucket.file(key).createReadStream({ validation: 'crc32c' });
  return new Promise<Readable>((resolve, reject) => {
    const onAbort = () => body.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('response', (response: { statusCode?: number }) => {
      // On a refusal the SDK reads the answer and then fails the stream with it.
      if ((response.statusCode ?? 0) >= 400) return;
      signal.removeEventListener('abort', onAbort);
      resolve(body);
    });
    body.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(cloudStoreError(error, { operation: 'download', bucket: bucket.name, path: `${bucket.name}/${key}` }));
    });
    // The SDK sends the request on the stream's first read.
    body.read(0);
  });
}
