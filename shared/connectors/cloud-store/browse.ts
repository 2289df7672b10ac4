import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import type { BrowseResult } from '../../model/browse';
import { GCS_BUCKETS, assertWithin, formatLocation, parseBucketLocation } from '../bucket-location';
import type { GoogleCredentials } from '../cloud/token';
import { openCloudStore } from './client';
import { cloudStoreError } from './errors';
import { listPage } from './listing';

export interface CloudStoreBrowseInput {
  readonly credentials: GoogleCredentials;
  readonly pathRestriction: string | null | undefined;
  /** "<bucket>" or "<bucket>/<folder>/". */
  readonly path: string;
  readonly continuationToken: string | undefined;
  /** Folders and files of one page together, as GCS counts them. */
  readonly maxItems: number;
}

/**
 * One page of one folder level of a bucket, in the shape object_store browsing answers: its
 * subfolders (prefixes) and files. The path must lie inside the connection's restriction
 * (30-1306); a folder with nothing below it does not exist (30-1305), an empty bucket does.
 */
export async function browseCloudStore(input: CloudStoreBrowseInput): Promise<BrowseResult> {
  const location = parseBucketLocation(input.path, GCS_BUCKETS);
  if (input.pathRestriction)
    assertWithin(location, parseBucketLocation(input.pathRestriction, GCS_BUCKETS), GCS_BUCKETS);
  const { bucket, prefix } = location;
  try {
    const { storage } = await openCloudStore(input.credentials, { timeoutMs: config.connectorTimeoutMs });
    const page = await listPage(storage.bucket(bucket), {
      prefix,
      delimiter: '/',
      maxResults: input.maxItems,
      pageToken: input.continuationToken,
    });
    if (
      prefix !== '' &&
      input.continuationToken === undefined &&
      page.prefixes.length === 0 &&
      page.items.length === 0
    ) {
      throw new AppError('30-1305', { params: [formatLocation(location)] });
    }
    const folders = page.prefixes.map((folder) => ({
      name: folder.slice(prefix.length, -1),
      path: `${bucket}/${folder}`,
    }));
    const files = page.items
      // The folder's own marker object ("sales/" when listing "sales/") is not a file in it.
      .filter((object) => object.name !== prefix)
      .map((object) => ({
        name: object.name.slice(prefix.length),
        path: `${bucket}/${object.name}`,
        size: sizeOf(object.size),
        last_modified: timeOf(object.updated),
      }));
    const token = page.nextPageToken ?? null;
    return {
      folders,
      files,
      metadata: {
        bucket,
        prefix,
        path: formatLocation(location),
        truncated: token !== null,
        next_continuation_token: token,
        key_count: folders.length + files.length,
      },
    };
  } catch (error) {
    throw cloudStoreError(error, { operation: 'list', bucket });
  }
}

/** GCS sends sizes as decimal strings (they exceed 2^53 in principle). */
function sizeOf(size: string | undefined): number | null {
  const bytes = size === undefined ? Number.NaN : Number(size);
  return Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : null;
}

function timeOf(updated: string | undefined): string | null {
  const time = updated === undefined ? Number.NaN : Date.parse(updated);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
