import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { DATA_FILE, bucketTarget, byteOrder, downloadAll, type BucketTarget } from '../bucket-download';
import { S3_BUCKETS } from '../bucket-location';
import type { FetchedSource, FetchOptions } from '../source-types';
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

/**
 * Reads a bucket data source into `options.workDir`: one CSV object, or every CSV object
 * below a folder at any depth. Store failures map to 30-11xx; an abort through
 * `options.signal` rethrows the signal's reason, since only the caller knows what it means.
 */
export async function fetchObjectStoreSource(
  input: ObjectStoreSourceInput,
  options: FetchOptions,
): Promise<FetchedSource> {
  options.signal.throwIfAborted();
  const endpoint = parseObjectStoreEndpoint(input.endpoint);
  const target = bucketTarget(input.path, input.pathRestriction, S3_BUCKETS);
  const timeoutMs = config.connectorTimeoutMs;
  const client = objectStoreClient(
    endpoint,
    { accessKeyId: input.accessKeyId, secretAccessKey: input.secretAccessKey },
    timeoutMs,
  );
  try {
    const keys = await csvKeys(client, target, options.signal, timeoutMs);
    return await downloadAll(target.bucket, keys, options, timeoutMs, (key, signal) =>
      openObject(client, target.bucket, key, signal),
    );
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

async function csvKeys(
  client: S3Client,
  target: BucketTarget,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string[]> {
  if (
    target.key !== undefined &&
    (await objectExists(client, target.bucket, target.key, listingSignal(signal, timeoutMs)))
  ) {
    if (!DATA_FILE.test(target.key)) throw new AppError('10-1000', { extraDetails: { path: target.shown } });
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
      if (!key.endsWith('/') && DATA_FILE.test(key)) csv.push(key);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  // An empty bucket exists (a missing one fails as NoSuchBucket); an empty prefix does not.
  if (keysSeen === 0 && target.folder !== '') throw new AppError('30-1114', { params: [target.shown] });
  if (csv.length === 0) throw new AppError('30-1118');
  return byteOrder(csv);
}

/**
 * Whether an object has exactly this key. A listing rather than HeadObject, because a HEAD
 * failure has no body: a missing bucket or refused credentials would lose their codes. The
 * delimiter folds everything under "<key>/" into one prefix, so the page stays small; the
 * whole page is searched because not every store lists in S3's binary key order (s3rver
 * does not).
 */
async function objectExists(
  client: S3Client,
  bucket: string,
  key: string,
  options: { abortSignal: AbortSignal },
): Promise<boolean> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, Delimiter: '/' }), options);
  return (page.Contents ?? []).some((object) => object.Key === key);
}

/** Starts one download; no total bound here: a large file may take as long as its bytes keep flowing (bucket-download's idle bound). */
async function openObject(client: S3Client, bucket: string, key: string, signal: AbortSignal): Promise<Readable> {
  const { Body: body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
  if (!(body instanceof Readable)) throw new Error('GetObject returned no readable body');
  return body;
}
