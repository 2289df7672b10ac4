import type { DeclaredColumn } from '../engine/declared-columns';

/**
 * What every connector's reader takes and gives when it reads a source into local files: each
 * reader (object-store/source.ts, and those to come) and the data source's fetch that picks one
 * (data-sources/fetch.ts) share them, so they stand apart from both.
 */

/** One file fetched into the work folder. */
export interface FetchedFile {
  /** Where the source named it, e.g. "landing/sales/2024-01.csv". */
  readonly source: string;
  readonly localPath: string;
  readonly bytes: number;
}

export interface FetchProgress {
  readonly bytesRead: number;
  readonly filesDone: number;
  readonly filesTotal: number;
}

export interface FetchOptions {
  /** Empty folder the files are written to. */
  readonly workDir: string;
  /** Called whenever bytes arrive; the job turns it into progress and heartbeats. */
  readonly onProgress: (progress: FetchProgress) => void;
  /** Aborts every request in flight (job stopped, inactivity). */
  readonly signal: AbortSignal;
}

export interface FetchedSource {
  readonly files: readonly FetchedFile[];
  readonly bytesRead: number;
  /**
   * The schema the source system declares for the rows it wrote as JSON Lines (analytics_db):
   * the engine loads them with these types instead of detecting types from the data.
   */
  readonly columns?: readonly DeclaredColumn[];
  /** The version of the source the rows were read at, where the source has versions (a shared Delta table's). */
  readonly sourceVersion?: number;
}
