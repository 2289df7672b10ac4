/** What bench/latency.ts (the load generator) and bench/twin-process.ts (the server side) say to each other over IPC. */
import type { ItemKey } from '../shared/db/keys';
import type { RequestBody } from '../test/support/api-client';

export interface TwinReady {
  readonly type: 'ready';
  readonly apiUrl: string;
  readonly dynamoEndpoint: string;
  readonly s3Endpoint: string;
  readonly tableName: string;
  readonly token: string;
  readonly connectionId: number;
  /** The item GET /connections/{id} reads, so the raw GetItem reads the very same item. */
  readonly connectionKey: ItemKey;
}

/** The server's view of one phase: how long the API server held each request and the outbound calls behind it. */
export interface PhaseStats {
  readonly type: 'stats';
  /** CPU time (user + system, all threads) the twin process used during the phase. */
  readonly cpuMs: number;
  readonly apiRequests: number;
  readonly apiMeanMs: number;
  /** By operation (e.g. "DynamoDB GetItem"); meanMs is the time to response headers. */
  readonly outbound: readonly { readonly operation: string; readonly count: number; readonly meanMs: number }[];
}

/**
 * `reset` starts a phase (`profile`: also start a V8 CPU profile of the twin, written under that
 * file name when the phase's `stats` are asked for); `stats` ends it.
 */
export type ParentMessage =
  { readonly type: 'reset'; readonly profile?: string } | { readonly type: 'stats' } | { readonly type: 'close' };
export type ChildMessage = TwinReady | PhaseStats;

/** A bucket of the twin's S3 the benches may fill (the mixed load's data table reads it). */
export const BENCH_BUCKET = 'bench';

/** The body of createConnection the bench sends: an object_store connection on the twin's S3. */
export function connectionRequest(name: string, s3Endpoint: string): RequestBody<'createConnection'> {
  return {
    name,
    type: 'object_store',
    auth: { auth_type: 'secret_key', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', endpoint: s3Endpoint },
  };
}
