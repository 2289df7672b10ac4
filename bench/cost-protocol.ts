/** What bench/cost.ts and its twin process (bench/cost-twin-process.ts) say to each other over IPC. */
import type { OperationId } from '../functions/routes';

/** One operation's valid request from the contract corpus, against the fixtures the twin process made. */
export interface CostCase {
  readonly operationId: OperationId;
  readonly method: string;
  /** Under the API's base path, with the query string. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface CostTwinReady {
  readonly type: 'ready';
  /** The environment the twin gives its functions (endpoints, table, bucket, key ids, state machines). */
  readonly environment: Readonly<Record<string, string>>;
  readonly cases: readonly CostCase[];
  /** Bearer tokens of the tenant's admin and of the platform admin (the admin plane). */
  readonly adminToken: string;
  readonly platformAdminToken: string;
  /** Ports of the twin's local S3, for telling its calls apart. */
  readonly s3Port: number;
}

export type CostParentMessage = { readonly type: 'close' };
