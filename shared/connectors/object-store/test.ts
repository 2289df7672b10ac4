import { ListBucketsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { objectStoreClient } from './client';
import { parseObjectStoreEndpoint } from './endpoint';
import { objectStoreError } from './errors';
import { S3_BUCKETS, formatLocation, parseBucketLocation } from '../bucket-location';

export interface ObjectStoreTestInput {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly pathRestriction: string | null | undefined;
}

/**
 * Tests an object-store configuration for real: with a path restriction it lists the
 * restricted folder (which must exist), without one it lists the account's buckets.
 */
export async function testObjectStore(input: ObjectStoreTestInput): Promise<void> {
  const endpoint = parseObjectStoreEndpoint(input.endpoint);
  const location = input.pathRestriction ? parseBucketLocation(input.pathRestriction, S3_BUCKETS) : undefined;
  const timeoutMs = config.connectorTimeoutMs;
  const client = objectStoreClient(
    endpoint,
    { accessKeyId: input.accessKeyId, secretAccessKey: input.secretAccessKey },
    timeoutMs,
  );
  const abortSignal = AbortSignal.timeout(timeoutMs * 2);
  try {
    if (!location) {
      await client.send(new ListBucketsCommand({ MaxBuckets: 1 }), { abortSignal });
      return;
    }
    const listing = await client.send(
      new ListObjectsV2Command({ Bucket: location.bucket, Prefix: location.prefix, Delimiter: '/', MaxKeys: 1 }),
      { abortSignal },
    );
    if (location.prefix !== '' && (listing.KeyCount ?? 0) === 0) {
      throw new AppError('30-1114', { params: [formatLocation(location)] });
    }
  } catch (error) {
    throw objectStoreError(error, location?.bucket);
  } finally {
    client.destroy();
  }
}
