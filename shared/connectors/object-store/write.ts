import { createReadStream } from 'node:fs';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { config } from '../../config';
import { sendStreamed } from '../../aws/streamed-send';
import { AppError } from '../../errors/app-error';
import type { ObjectToWrite, WriteOptions } from '../write-options';
import { objectStoreClient, type ObjectStoreCredentials } from './client';
import { parseObjectStoreEndpoint } from './endpoint';
import { objectStoreError } from './errors';

/** An S3-compatible bucket written with credentials in clear. */
export interface ObjectStoreDestination extends ObjectStoreCredentials {
  readonly endpoint: string;
  readonly bucket: string;
}

const MIB = 2 ** 20;
/** Parts of 16 MiB, larger when a file would need more than S3's 10,000 parts. */
const PART_BYTES = 16 * MIB;
const MAX_PARTS = 10_000;

/**
 * The catalogue code of a failed write. Credentials sent with an export request are not a
 * connection's: their signature mismatch is 30-1109 (docs/decisions.md, Errors).
 */
export function destinationError(error: unknown, bucket: string): AppError {
  const mapped = objectStoreError(error, bucket);
  return mapped.code === '30-1117' ? new AppError('30-1109', { cause: error }) : mapped;
}

function clientFor(destination: ObjectStoreDestination): S3Client {
  return objectStoreClient(parseObjectStoreEndpoint(destination.endpoint), destination, config.connectorTimeoutMs);
}

/**
 * Checks, before a job is started, that the credentials sign for the bucket: one listing of
 * at most one key under `key`. A wrong secret is 30-1109, a missing bucket 30-1108.
 */
export async function checkObjectStoreDestination(destination: ObjectStoreDestination, key: string): Promise<void> {
  const client = clientFor(destination);
  try {
    await client.send(new ListObjectsV2Command({ Bucket: destination.bucket, Prefix: key, MaxKeys: 1 }), {
      abortSignal: AbortSignal.timeout(config.connectorTimeoutMs * 2),
    });
  } catch (error) {
    throw destinationError(error, destination.bucket);
  } finally {
    client.destroy();
  }
}

interface OpenUpload {
  readonly object: ObjectToWrite;
  readonly uploadId: string;
  readonly parts: { ETag: string; PartNumber: number }[];
}

/**
 * Writes every object as a multipart upload and completes the uploads only once all their
 * parts are stored: until then nothing is visible under any final key, so a failure (or a
 * worker that dies) leaves no partial object. On failure the open uploads are aborted and
 * objects already completed are deleted, as far as the store still answers; uploads a dead
 * worker leaves open stay invisible until the bucket's lifecycle rule aborts them.
 */
export async function writeObjectStoreObjects(
  destination: ObjectStoreDestination,
  objects: readonly ObjectToWrite[],
  options: WriteOptions,
): Promise<void> {
  const client = clientFor(destination);
  const Bucket = destination.bucket;
  const open: OpenUpload[] = [];
  const completed: string[] = [];
  let written = 0;
  try {
    for (const object of objects) {
      const created = await client.send(
        new CreateMultipartUploadCommand({ Bucket, Key: object.key, ContentType: object.contentType }),
        { abortSignal: options.signal },
      );
      const upload: OpenUpload = { object, uploadId: created.UploadId ?? '', parts: [] };
      open.push(upload);
      const partBytes = Math.max(PART_BYTES, Math.ceil(object.bytes / MAX_PARTS));
      // An empty file is one empty part: a multipart upload needs at least one.
      for (let start = 0, number = 1; start < object.bytes || number === 1; start += partBytes, number += 1) {
        const length = Math.min(partBytes, object.bytes - start);
        const part = await sendStreamed(
          () =>
            client.send(
              new UploadPartCommand({
                Bucket,
                Key: object.key,
                UploadId: upload.uploadId,
                PartNumber: number,
                Body:
                  length === 0
                    ? new Uint8Array()
                    : createReadStream(object.localPath, { start, end: start + length - 1 }),
                ContentLength: length,
              }),
              { abortSignal: options.signal },
            ),
          options.signal,
        );
        upload.parts.push({ ETag: part.ETag ?? '', PartNumber: number });
        written += length;
        options.onProgress(written);
      }
    }
    for (const upload of open) {
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: upload.object.key,
          UploadId: upload.uploadId,
          MultipartUpload: { Parts: upload.parts },
        }),
        {
          abortSignal: options.signal,
        },
      );
      completed.push(upload.object.key);
    }
  } catch (error) {
    await Promise.allSettled([
      ...open
        .filter((upload) => !completed.includes(upload.object.key))
        .map((upload) =>
          client.send(new AbortMultipartUploadCommand({ Bucket, Key: upload.object.key, UploadId: upload.uploadId })),
        ),
      ...completed.map((key) => client.send(new DeleteObjectCommand({ Bucket, Key: key }))),
    ]);
    if (options.signal.aborted) throw options.signal.reason;
    throw destinationError(error, Bucket);
  } finally {
    client.destroy();
  }
}
