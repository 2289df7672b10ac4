/**
 * Building blocks of multi-part export tests: a source too big for one S3 part, a multipart
 * upload on the twin's S3 with one pre-signed UploadPart URL per part (what a caller makes
 * before it starts the export), and the upload completed with the ETags the job answered.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { TestTwin } from './harness';
import { getObject } from './exports';

/**
 * A Parquet file that compression cannot shrink: `rows` rows of hex digests, all different
 * (~68 bytes a row), so its size, and the parts an export cuts it into, follow from `rows`.
 */
export async function incompressibleParquet(rows: number): Promise<Buffer> {
  const dir = mkdtempSync(join(os.tmpdir(), 'multi-part-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const path = join(dir, 'big.parquet');
    await connection.run(
      `COPY (SELECT i AS id, md5(i::VARCHAR) || md5((i * 7919)::VARCHAR) AS digest, i % 2 = 0 AS even FROM range(${rows}) t(i)) TO ${quotedString(path)} (FORMAT parquet)`,
    );
    connection.closeSync();
    return readFileSync(path);
  } finally {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A multipart upload of `bucket/key` on the twin's S3 and one pre-signed UploadPart URL per part. */
export async function presignedUpload(
  s3: S3Client,
  bucket: string,
  key: string,
  parts: number,
): Promise<{ uploadId: string; urls: string[] }> {
  const { UploadId: uploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const urls = await Promise.all(
    Array.from({ length: parts }, (_, index) =>
      getSignedUrl(s3, new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: index + 1 }), {
        expiresIn: 600,
      }),
    ),
  );
  return { uploadId: uploadId!, urls };
}

/** Completes the upload with the parts the job answered, in order, and reads the object back. */
export async function completedUpload(
  env: TestTwin,
  s3: S3Client,
  upload: { readonly bucket: string; readonly key: string; readonly uploadId: string },
  result: readonly { e_tag: string; part_number: number }[],
): Promise<Buffer> {
  const parts = result.map((part) => ({ ETag: part.e_tag, PartNumber: part.part_number }));
  await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: upload.bucket,
      Key: upload.key,
      UploadId: upload.uploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
  return getObject(env, upload.bucket, upload.key);
}
