/** What bench/import-throughput.ts and bench/import-twin-process.ts (the twin under import load) say to each other over IPC. */

/** Bucket of the twin's S3 that holds the bench's source CSV (the twin creates it next to its own data bucket). */
export const SOURCE_BUCKET = 'bench-source';

export interface ImportTwinReady {
  readonly type: 'ready';
  readonly apiUrl: string;
  readonly s3Endpoint: string;
  /** The local DynamoDB and the service's table in it, for reading the table as it stands (the soak counts its items). */
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  /** Where the job workers make their scratch folders (WORK_DIRECTORY), under the twin's temporary folder. */
  readonly scratchRoot: string;
  /** The twin's own data bucket, where imports write their versions. */
  readonly dataBucket: string;
  /** The bootstrap admin's client credentials: the bench gets its token over HTTP like any client. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The platform admin's (feature toggles: the quality bench turns data_quality on). */
  readonly platformAdmin: { readonly clientId: string; readonly clientSecret: string; readonly tenantId: string };
  /** The bootstrap admin's tenant. */
  readonly adminTenantId: string;
}

/**
 * Something the twin process did while a job ran, in epoch milliseconds with sub-millisecond
 * precision (performance.timeOrigin + performance.now(), comparable across the two processes).
 */
export interface Span {
  readonly kind: 'worker' | 'S3' | 'DynamoDB' | 'KMS' | 'SFN' | 'DuckDB' | 'engine' | 'other';
  /** e.g. "GetObject bench-source/import/data.csv", "UpdateItem", "COPY csv → parquet". */
  readonly label: string;
  readonly start: number;
  /** Outbound HTTP calls: when the response headers arrived. */
  readonly headers?: number;
  /** Outbound HTTP calls: when the response body ended (or the socket closed). */
  readonly end: number;
  /** Outbound HTTP calls: content-length of the request (uploads) or of the response (downloads). */
  readonly requestBytes?: number;
  readonly responseBytes?: number;
}

/** The twin's view of one import, from the last reset. */
export interface ImportProfile {
  readonly type: 'profile';
  /** CPU time (user + system, all threads, DuckDB's included) of the twin process. */
  readonly cpuMs: number;
  /** Share of wall time the twin's event loop was busy (performance.eventLoopUtilization). */
  readonly eventLoopUtilization: number;
  /** Longest event-loop delay seen (ms), from monitorEventLoopDelay: a blocked loop delays every stream on it. */
  readonly eventLoopMaxDelayMs: number;
  /** Requests the API server answered (the bench's polls among them) and the time it held them in total. */
  readonly apiRequests: number;
  readonly apiHeldMs: number;
  readonly spans: readonly Span[];
}

/** One timed run; `stages` are the parts of it that were timed separately (ms). */
export interface RunResult {
  readonly ms: number;
  readonly stages: Readonly<Record<string, number>>;
}

/** The bare script run inside the twin's process (bench/import-bare.ts), with the worker's engine settings. */
export interface BareInTwinRequest {
  readonly type: 'bare';
  readonly label: string;
  readonly rows: number;
}

/** Its result, or why it failed. */
export type BareInTwinDone = { readonly type: 'bare-done' } & (
  { readonly result: RunResult } | { readonly error: string }
);

export type ImportParentMessage =
  { readonly type: 'reset' } | { readonly type: 'profile' } | { readonly type: 'close' } | BareInTwinRequest;
export type ImportChildMessage = ImportTwinReady | ImportProfile | { readonly type: 'reset-done' } | BareInTwinDone;

/** Epoch milliseconds with sub-millisecond precision. */
export const now = (): number => performance.timeOrigin + performance.now();
