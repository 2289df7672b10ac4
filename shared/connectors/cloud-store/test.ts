import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { GCS_BUCKETS, formatLocation, parseBucketLocation } from '../bucket-location';
import type { GoogleCredentials } from '../cloud/token';
import { openCloudStore } from './client';
import { cloudStoreError } from './errors';
import { listPage } from './listing';

export interface CloudStoreTestInput {
  readonly credentials: GoogleCredentials;
  readonly pathRestriction: string | null | undefined;
}

/**
 * Tests a cloud-store configuration for real: the token exchange, then with a path
 * restriction a listing of the restricted folder (which must exist), without one a listing
 * of the project's buckets (which needs the project-level permission, 30-1308).
 */
export async function testCloudStore(input: CloudStoreTestInput): Promise<void> {
  const location = input.pathRestriction ? parseBucketLocation(input.pathRestriction, GCS_BUCKETS) : undefined;
  try {
    const { storage } = await openCloudStore(input.credentials, { timeoutMs: config.connectorTimeoutMs });
    if (!location) {
      await storage.getBuckets({ maxResults: 1, autoPaginate: false });
      return;
    }
    const page = await listPage(storage.bucket(location.bucket), {
      prefix: location.prefix,
      delimiter: '/',
      maxResults: 1,
    });
    if (location.prefix !== '' && page.items.length === 0 && page.prefixes.length === 0) {
      throw new AppError('30-1305', { params: [formatLocation(location)] });
    }
  } catch (error) {
    throw cloudStoreError(error, { operation: location ? 'list' : 'buckets', bucket: location?.bucket });
  }
}
