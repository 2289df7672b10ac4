import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { BrowseResult } from '../../model/browse';
import { S3_BUCKETS, assertWithin, formatLocation, parseBucketLocation } from '../bucket-location';
import { objectStoreClient } from './client';
import { parseObjectStoreEndpoint } from './endpoint';
import { objectStoreError } from './errors';

export interface ObjectStoreBrowseInput {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly pathRestriction: string | null | undefined;
  /** "<bucket>" or "<bucket>/<folder>/". */
  readonly path: string;
  readonly continuationToken: string | undefined;
  /** Folders and files of one page together, as S3 counts them. */
  readonly maxItems: number;
}

/**
 * One page of one folder level of a bucket: its subfolders (common prefixes) and files.
 * The path must lie inside the connection's restriction; a folder with nothing below it
 * does not exist (30-1114), an empty bucket does.
 */
export async function browseObjectStore(input: ObjectStoreBrowseInput): Promise<BrowseResult> {
  const endpoint = parseObjectStoreEndpoint(input.endpoint);
  const location = parseBucketLocation(input.path, S3_BUCKETS);
  if (input.pathRestriction) assertWithin(location, parseBucketLocation(input.pathRestriction, S3_BUCKETS), S3_BUCKETS);
  const { bucket, prefix } = location;
  const timeoutMs = config.connectorTimeoutMs;
  const client = objectStoreClient(
    endpoint,
    { accessKeyId: input.accessKeyId, secretAccessKey: input.secretAccessKey },
    timeoutMs,
  );
  try {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix || undefined,
        Delimiter: '/',
        MaxKeys: input.maxItems,
        ContinuationToken: input.continuationToken,
      }),
      { abortSignal: AbortSignal.timeout(timeoutMs * 2) },
    );
    const prefixes = (page.CommonPrefixes ?? []).flatMap(({ Prefix: folder }) =>
      folder === undefined ? [] : [folder],
    );
    const objects = page.Contents ?? [];
    // Not KeyCount: s3rver leaves common prefixes out of it, S3 counts them.
    if (prefix !== '' && input.continuationToken === undefined && prefixes.length === 0 && objects.length === 0) {
      throw new AppError('30-1114', { params: [formatLocation(location)] });
    }
    const folders = prefixes.map((folder) => ({ name: folder.slice(prefix.length, -1), path: `${bucket}/${folder}` }));
    const files = objects
      // The folder's own marker object ("sales/" when listing "sales/") is not a file in it.
      .filter((object): object is typeof object & { Key: string } => object.Key !== undefined && object.Key !== prefix)
      .map((object) => ({
        name: object.Key.slice(prefix.length),
        path: `${bucket}/${object.Key}`,
        size: object.Size ?? null,
        last_modified: object.LastModified?.toISOString() ?? null,
      }));
    return {
      folders,
      files,
      metadata: {
        bucket,
        prefix,
        path: formatLocation(location),
        truncated: page.IsTruncated ?? false,
        next_continuation_token: page.IsTruncated ? (page.NextContinuationToken ?? null) : null,
        key_count: folders.length + files.length,
      },
    };
  } catch (error) {
    throw objectStoreError(error, bucket);
  } finally {
    client.destroy();
  }
}
