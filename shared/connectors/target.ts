/**
 * The write capability of the connector interface: where an export's files go. Each kind of
 * destination has its writer; object stores are written for real, and destinations whose
 * connector is not built answer 10-1501 (feature flag connector.<type>) when targets name
 * them. Every writer keeps the same promise: no object is visible under its final name until
 * every one of the export's objects is written.
 */
import { writeObjectStoreObjects, type ObjectStoreDestination } from './object-store/write';

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

/** Writes the export's files to the destination, all of them or none visibly. */
export async function writeToDestination(destination: WriteDestination, objects: readonly ObjectToWrite[], options: WriteOptions): Promise<void> {
  switch (destination.type) {
    case 'object_store':
      return writeObjectStoreObjects(destination, objects, options);
  }
}
