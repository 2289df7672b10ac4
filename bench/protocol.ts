/** What bench/latency.ts (the load generator) and bench/twin-process.ts (the server side) say to each other over IPC. */
import type { ItemKey } from '../shared/db/keys';

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

export type ParentMessage = { readonly type: 'reset' } | { readonly type: 'stats' } | { readonly type: 'close' };
export type ChildMessage = TwinReady | PhaseStats;

/** The body of POST /connections the bench sends: an object_store connection on the twin's S3. */
export function connectionRequest(name: string, s3Endpoint: string): string {
  return JSON.stringify({
    name,
    type: 'object_store',
    auth: { auth_type: 'secret_key', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', endpoint: s3Endpoint },
  });
}
