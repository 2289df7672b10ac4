/**
 * What every writer of the connector interface's write capability (target.ts) takes: the
 * files to write and how a running export follows and stops them. Apart from target.ts, so
 * that the writers and the module that chooses among them do not import each other.
 */

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
  /** Called as bytes (rows, for table writers) are stored; the job turns it into progress and heartbeats. */
  readonly onProgress: (written: number) => void;
}
