import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  NoSuchKey,
} from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { config } from '../config';
import { traceClient } from '../observability/tracing';
import { perStores } from './per-stores';
import { sendStreamed } from './streamed-send';

/**
 * The service's own data bucket (data versions, samples, analyses), reached with the
 * function's role. Kept apart from shared/aws/clients.ts so functions that never touch data
 * do not load the S3 client at cold start. Locally AWS_ENDPOINT_URL_S3 points at s3rver,
 * which needs path-style addressing.
 */
const s3 = perStores(
  () =>
    traceClient(
      new S3Client({
        forcePathStyle: process.env.AWS_ENDPOINT_URL_S3 !== undefined,
        // Checksums only where S3 requires them: a streamed upload with a default checksum goes
        // out aws-chunked with a trailer, which S3-compatible stores such as s3rver store verbatim.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    ),
  (client) => client.destroy(),
);

export async function putFile(key: string, path: string, contentType: string): Promise<void> {
  const { size } = await stat(path);
  await sendStreamed(() =>
    s3().send(
      new PutObjectCommand({
        Bucket: config.dataBucket,
        Key: key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: contentType,
      }),
    ),
  );
}

export async function putJson(key: string, value: unknown): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: config.dataBucket,
      Key: key,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
    }),
  );
}

/** Writes bytes held in memory (an app's asset). */
export async function putBytes(key: string, body: Uint8Array, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: config.dataBucket, Key: key, Body: body, ContentType: contentType }));
}

/** The object's bytes, or undefined when it does not exist. */
export async function getBytes(key: string): Promise<Uint8Array | undefined> {
  try {
    const result = await s3().send(new GetObjectCommand({ Bucket: config.dataBucket, Key: key }));
    return await result.Body!.transformToByteArray();
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** The object's text, or undefined when it does not exist. */
export async function getText(key: string): Promise<string | undefined> {
  try {
    const result = await s3().send(new GetObjectCommand({ Bucket: config.dataBucket, Key: key }));
    return await result.Body!.transformToString('utf8');
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** Copies an object to a local file; `signal` (a job's) ends the copy at once when the job is stopped. */
export async function downloadFile(key: string, path: string, signal?: AbortSignal): Promise<void> {
  const options = signal ? { abortSignal: signal } : {};
  const result = await s3().send(new GetObjectCommand({ Bucket: config.dataBucket, Key: key }), options);
  await pipeline(result.Body as Readable, createWriteStream(path), signal ? { signal } : {});
}

/** The keys under the prefix, with their sizes, in key order. */
export async function listKeys(prefix: string): Promise<{ readonly key: string; readonly bytes: number }[]> {
  const keys: { key: string; bytes: number }[] = [];
  let token: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: config.dataBucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) keys.push({ key: object.Key!, bytes: object.Size ?? 0 });
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** Deletes every object under the prefix (a data version's folder). */
export async function deletePrefix(prefix: string): Promise<void> {
  let token: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: config.dataBucket, Prefix: prefix, ContinuationToken: token }),
    );
    const objects = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
    if (objects.length > 0)
      await s3().send(
        new DeleteObjectsCommand({ Bucket: config.dataBucket, Delete: { Objects: objects, Quiet: true } }),
      );
    token = page.NextContinuationToken;
  } while (token);
}
