/**
 * The local S3 under requests its file-system store cannot carry out: each is answered with
 * S3's XML error document and its status, and the store goes on answering. Before, a key
 * whose file name was too long raised an uncaught stream error that ended the process.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from '../../../infra/local/s3';

let directory: string;
let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'local-s3-test-'));
  s3 = await startLocalS3({ directory, buckets: ['bucket', 'neighbour'] });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client?.destroy();
  await s3?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The S3 error a request is answered with: code, status and message. */
async function s3Error(request: Promise<unknown>): Promise<{ code: string; status?: number; message: string }> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(S3ServiceException);
  const { name, message, $metadata } = error as S3ServiceException;
  return { code: name, status: $metadata.httpStatusCode, message };
}

const put = (Key: string, Body = 'data') => client.send(new PutObjectCommand({ Bucket: 'bucket', Key, Body }));

async function stillAnswers(): Promise<void> {
  await put('after/ok.txt', 'still here');
  const read = await client.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'after/ok.txt' }));
  expect(await read.Body!.transformToString()).toBe('still here');
}

describe('keys the file system cannot hold', () => {
  it('answers 400 KeyTooLongError for a 300-byte file name S3 would accept, and goes on answering', async () => {
    const answer = await s3Error(put(`out/${'x'.repeat(300)}.parquet`));
    expect(answer).toMatchObject({ code: 'KeyTooLongError', status: 400 });
    expect(answer.message).toContain('233');
    expect((await s3Error(put(`${'x'.repeat(300)}/file.csv`))).code).toBe('KeyTooLongError');
    await stillAnswers();
  });

  it('answers 400 KeyTooLongError beyond 1024 bytes, as S3 does', async () => {
    const answer = await s3Error(put(Array.from({ length: 6 }, () => 'é'.repeat(90)).join('/')));
    expect(answer).toMatchObject({ code: 'KeyTooLongError', status: 400 });
  });

  it('answers a read of such a key as a key that does not exist', async () => {
    const answer = await s3Error(client.send(new GetObjectCommand({ Bucket: 'bucket', Key: `${'x'.repeat(300)}` })));
    expect(answer).toMatchObject({ code: 'NoSuchKey', status: 404 });
  });

  it('refuses "." and ".." folders, which would write outside the key\'s folder', async () => {
    const answer = await s3Error(put('a/../../neighbour/planted.txt'));
    expect(answer).toMatchObject({ code: 'InvalidArgument', status: 400 });
    const planted = await s3Error(client.send(new GetObjectCommand({ Bucket: 'neighbour', Key: 'planted.txt' })));
    expect(planted.code).toBe('NoSuchKey');
  });
});

describe('internal errors of the store', () => {
  it('answers 500 InternalError when the file system refuses a write, and goes on answering', async () => {
    // A plain file where the key needs a folder: mkdir fails with ENOTDIR inside the store.
    writeFileSync(join(directory, 'bucket', 'blocker'), 'not a folder');
    const answer = await s3Error(put('blocker/inside.txt'));
    expect(answer).toMatchObject({ code: 'InternalError', status: 500 });
    await stillAnswers();
  });
});

describe('multipart uploads', () => {
  it('answers NoSuchUpload for an unknown upload and InvalidPart for a part never uploaded', async () => {
    const unknown = await s3Error(
      client.send(
        new UploadPartCommand({ Bucket: 'bucket', Key: 'mp.bin', UploadId: '../../outside', PartNumber: 1, Body: 'x' }),
      ),
    );
    expect(unknown).toMatchObject({ code: 'NoSuchUpload', status: 404 });
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'bucket', Key: 'mp.bin' }));
    const part = await client.send(
      new UploadPartCommand({ Bucket: 'bucket', Key: 'mp.bin', UploadId, PartNumber: 1, Body: 'one' }),
    );
    const missing = await s3Error(
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'bucket',
          Key: 'mp.bin',
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: part.ETag },
              { PartNumber: 2, ETag: part.ETag },
            ],
          },
        }),
      ),
    );
    expect(missing).toMatchObject({ code: 'InvalidPart', status: 400 });
    await stillAnswers();
  });

  it('assembles the parts uploaded into one object', async () => {
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'bucket', Key: 'whole.bin' }));
    const parts = [];
    for (const [index, body] of ['first-', 'second-', 'third'].entries()) {
      const PartNumber = index + 1;
      const { ETag } = await client.send(
        new UploadPartCommand({ Bucket: 'bucket', Key: 'whole.bin', UploadId, PartNumber, Body: body }),
      );
      parts.push({ PartNumber, ETag });
    }
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'bucket',
        Key: 'whole.bin',
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    const read = await client.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'whole.bin' }));
    expect(await read.Body!.transformToString()).toBe('first-second-third');
  });
});

describe('deleting several objects of one folder', () => {
  it('answers DeleteObjects on its first attempt, removes the emptied folders and keeps their neighbours', async () => {
    // A folder of files deleted at once: s3rver deleted them in parallel, and a deletion that
    // found the folder already removed by another answered 500 (on most runs with this many).
    const keys = Array.from({ length: 20 }, (_, index) => `tenant/tables/1/v1/part-${index}.parquet`);
    for (const key of [...keys, 'tenant/tables/1/v2/data.parquet']) await put(key);
    // maxAttempts 1: an answer the SDK would have retried fails here.
    const deleted = await client.send(
      new DeleteObjectsCommand({ Bucket: 'bucket', Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
    );
    expect(deleted.Errors ?? []).toEqual([]);
    const left = await client.send(new ListObjectsV2Command({ Bucket: 'bucket', Prefix: 'tenant/' }));
    expect((left.Contents ?? []).map((object) => object.Key)).toEqual(['tenant/tables/1/v2/data.parquet']);
    expect(existsSync(join(directory, 'bucket', 'tenant', 'tables', '1', 'v1'))).toBe(false);
    await put('tenant/tables/1/v1/again.txt');
    await stillAnswers();
  });
});
