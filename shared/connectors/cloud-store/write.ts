import { randomUUID } from 'node:crypto';
import type { File } from '@google-cloud/storage';
import { config } from '../../config';
import type { GoogleCredentials } from '../cloud/token';
import type { ObjectToWrite, WriteOptions } from '../write-options';
import { openCloudStore } from './client';
import { cloudStoreError } from './errors';
import { uploadFile } from './upload';

/** A bucket of a cloud_store connection, written with the connection's credentials. */
export interface CloudStoreDestination {
  readonly credentials: GoogleCredentials;
  readonly bucket: string;
}

/**
 * The name an object is uploaded under before it gets its own: beside it, so a rewrite stays
 * within the bucket, and with a suffix no reader takes for a data file.
 */
function stagingKey(key: string, tag: string): string {
  return `${key}.partial-${tag}`;
}

/**
 * Writes every object to a cloud_store bucket. GCS has no multipart completion to hold an
 * object back, so each file is uploaded under a staging name first (resumable above 5 MiB,
 * uploadFile), and only once all are stored is each copied to its final name (objects.rewrite,
 * within the bucket a metadata operation) and the staging object deleted. A failure deletes
 * the staging objects and any final object already copied, as far as the store still
 * answers: nothing stays under a final name. Failures map to 30-13xx (429 is 30-1307, which
 * jobs retry).
 */
export async function writeCloudStoreObjects(
  destination: CloudStoreDestination,
  objects: readonly ObjectToWrite[],
  options: WriteOptions,
): Promise<void> {
  options.signal.throwIfAborted();
  const staged: File[] = [];
  const finals: File[] = [];
  try {
    const { storage } = await openCloudStore(destination.credentials, {
      timeoutMs: config.connectorTimeoutMs,
      signal: options.signal,
    });
    const bucket = storage.bucket(destination.bucket);
    const tag = randomUUID();
    let written = 0;
    for (const object of objects) {
      const staging = bucket.file(stagingKey(object.key, tag));
      staged.push(staging);
      await uploadFile(staging, object.localPath, object.bytes, object.contentType, {
        signal: options.signal,
        onBytes: (bytes) => {
          written += bytes;
          options.onProgress(written);
        },
      });
    }
    for (const [index, object] of objects.entries()) {
      const final = bucket.file(object.key);
      await staged[index]!.copy(final);
      finals.push(final);
    }
  } catch (error) {
    await Promise.allSettled([...finals, ...staged].map((file) => file.delete({ ignoreNotFound: true })));
    if (options.signal.aborted) throw options.signal.reason;
    throw cloudStoreError(error, { operation: 'upload', bucket: destination.bucket });
  }
  // The export is whole under its final names; a staging object the store fails to delete
  // now is litter under a name no reader takes for data, not a reason to fail the export.
  await Promise.allSettled(staged.map((file) => file.delete({ ignoreNotFound: true })));
}
