import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { File } from '@google-cloud/storage';
import { config } from '../../config';
import { GCS_BUCKETS, assertWithin, parseBucketLocation } from '../bucket-location';
import type { GoogleCredentials } from '../cloud/token';
import { openCloudStore } from './client';
import { cloudStoreError } from './errors';

export interface CloudStoreUploadInput {
  readonly credentials: GoogleCredentials;
  readonly pathRestriction: string | null | undefined;
  /** The object to write: "<bucket>/<key>", the key without a trailing slash. */
  readonly path: string;
  readonly localPath: string;
  readonly contentType: string;
}

export interface CloudStoreUploadOptions {
  readonly signal?: AbortSignal;
  /** Bytes per request of a resumable upload; a multiple of 256 KiB (GCS's rule). */
  readonly chunkSize?: number;
}

export interface CloudStoreUploaded {
  readonly path: string;
  readonly bytes: number;
}

/** Files up to this size go in one multipart request; larger ones as a resumable upload in chunks. */
const MULTIPART_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Writes a local file as one object of a cloud_store connection, for exports. The path must
 * name an object (30-1304 otherwise) inside the connection's restriction (30-1306). The SDK
 * checks the stored object's CRC32C against what it sent.
 */
export async function uploadToCloudStore(
  input: CloudStoreUploadInput,
  options: CloudStoreUploadOptions = {},
): Promise<CloudStoreUploaded> {
  const location = parseBucketLocation(input.path, GCS_BUCKETS);
  const named = input.path.trim().replace(/^\/+/, '');
  if (location.prefix === '' || named.endsWith('/')) throw GCS_BUCKETS.invalidPath(input.path);
  if (input.pathRestriction)
    assertWithin(location, parseBucketLocation(input.pathRestriction, GCS_BUCKETS), GCS_BUCKETS, named);
  const key = location.prefix.slice(0, -1);
  const { size } = await stat(input.localPath);
  try {
    const { storage } = await openCloudStore(input.credentials, {
      timeoutMs: config.connectorTimeoutMs,
      signal: options.signal,
    });
    await uploadFile(storage.bucket(location.bucket).file(key), input.localPath, size, input.contentType, options);
    return { path: `${location.bucket}/${key}`, bytes: size };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw cloudStoreError(error, { operation: 'upload', bucket: location.bucket, path: named });
  }
}

/**
 * Uploads a local file of `size` bytes to `target` as the SDK does it: one multipart request
 * up to 5 MiB, a resumable upload in chunks above. `onBytes` hears of every chunk read.
 * Failures are the SDK's; the caller maps them.
 */
export async function uploadFile(
  target: File,
  localPath: string,
  size: number,
  contentType: string,
  options: CloudStoreUploadOptions & { readonly onBytes?: (bytes: number) => void },
): Promise<void> {
  const resumable = size > MULTIPART_MAX_BYTES;
  const writer = target.createWriteStream({
    resumable,
    ...(resumable ? { chunkSize: options.chunkSize ?? DEFAULT_CHUNK_BYTES } : {}),
    contentType,
    validation: 'crc32c',
  });
  const reader = createReadStream(localPath);
  const onBytes = options.onBytes;
  if (onBytes) reader.on('data', (chunk) => onBytes(chunk.length));
  await (options.signal ? pipeline(reader, writer, { signal: options.signal }) : pipeline(reader, writer));
}
