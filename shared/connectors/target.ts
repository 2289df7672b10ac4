/**
 * The write capability of the connector interface: where an export's files go. Each kind of
 * destination has its writer; object stores are written for real, and destinations whose
 * connector is not built answer 10-1501 (feature flag connector.<type>) when targets name
 * them. Every writer keeps the same promise: no object is visible under its final name until
 * every one of the export's objects is written.
 */
import { AppError } from '../errors/app-error';
import { S3_BUCKETS, parseBucketLocation } from './bucket-location';
import { writeObjectStoreObjects, type ObjectStoreDestination } from './object-store/write';
import type { SourceConnection } from './source';

/** One file to write, from the worker's scratch folder. */
export interface ObjectToWrite {
  readonly key: string;
  readonly localPath: string;
  readonly bytes: number;
  readonly contentType: string;
}

export interface WriteOptions {
  /** Aborts every request in flight (job stopped, inactivity). */
  readonly signal: AbortSignal;
  /** Called as bytes are stored; the job turns it into progress and heartbeats. */
  readonly onProgress: (bytesWritten: number) => void;
}

export type WriteDestination = { readonly type: 'object_store' } & ObjectStoreDestination;

/** A folder of a target's connection, as a destination and the prefix its files go under. */
export interface FolderDestination {
  readonly destination: WriteDestination;
  /** "" or a folder ending in "/". */
  readonly prefix: string;
}

/**
 * The destination of a bucket target: its rendered folder path (`<bucket>/<folder>/`) through
 * its connection (secret in clear). Object stores are written for real; other connection
 * types answer 10-1501 with the feature flag connector.<type> until their writer exists.
 */
export function folderDestination(connection: SourceConnection, path: string): FolderDestination {
  switch (connection.type) {
    case 'object_store': {
      const { bucket, prefix } = parseBucketLocation(path, S3_BUCKETS);
      return {
        destination: {
          type: 'object_store',
          endpoint: connection.auth.endpoint ?? '',
          accessKeyId: connection.auth.access_key_id ?? '',
          secretAccessKey: connection.secret,
          bucket,
        },
        prefix,
      };
    }
    default:
      throw new AppError('10-1501', { params: [`connector.${connection.type}`] });
  }
}

/** Writes the export's files to the destination, all of them or none visibly. */
export async function writeToDestination(destination: WriteDestination, objects: readonly ObjectToWrite[], options: WriteOptions): Promise<void> {
  switch (destination.type) {
    case 'object_store':
      return writeObjectStoreObjects(destination, objects, options);
  }
}
