import { setTimeout as sleep } from 'node:timers/promises';
import type { BigQuery, Job } from '@google-cloud/bigquery';
import type { TableRef } from './table-ref';

/**
 * How a view (or a materialized view, or an external table: nothing tabledata.list can list)
 * is read: BigQuery runs `SELECT * FROM` it as a query job (jobs.insert), which materializes
 * the result in the job's anonymous result table; the job is polled (jobs.get) until done, and
 * its result is then read page by page like a table (jobs.getQueryResults with pageToken).
 * Running the job takes bigquery.jobs.create in the connection's project and a token with the
 * bigquery scope rather than the read-only one; a job stopped with its import is cancelled.
 */

/** Pauses between polls of a running job: quick for small views, then every few seconds. */
const POLL_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

/** A page of rows as tabledata.list and jobs.getQueryResults both send them. */
export interface RowsPage {
  readonly rows?: readonly { readonly f?: readonly { readonly v?: unknown }[] }[];
  readonly pageToken?: string;
}

/** A failed job's errorResult, raised as the SDK raises an API error (`errors`, no HTTP status). */
export class QueryJobFailure extends Error {
  readonly errors: readonly { readonly reason?: unknown }[];

  constructor(errorResult: { readonly reason?: unknown; readonly message?: unknown }) {
    super(typeof errorResult.message === 'string' ? errorResult.message : 'the query job failed');
    this.name = 'QueryJobFailure';
    this.errors = [errorResult];
  }
}

interface JobStatus {
  readonly status?: {
    readonly state?: string;
    readonly errorResult?: { readonly reason?: unknown; readonly message?: unknown };
  };
}

/** A view's identifiers quoted one by one: a table_ref's parts hold no backtick (table-ref.ts). */
export const viewQuery = (ref: TableRef): string =>
  `SELECT * FROM \`${ref.project}\`.\`${ref.dataset}\`.\`${ref.table}\``;

/**
 * Starts the view's query job in the dataset's location. `call` bounds and maps each request
 * (phase "query"); a job that fails at once raises its error there.
 */
export async function startViewJob(
  bigquery: BigQuery,
  ref: TableRef,
  location: string | undefined,
  call: <T>(request: Promise<T>) => Promise<T>,
): Promise<Job> {
  const [job] = await call(
    bigquery.createQueryJob({ query: viewQuery(ref), useLegacySql: false, ...(location ? { location } : {}) }),
  );
  return job;
}

/**
 * Polls the job until BigQuery reports it DONE; answers its failure when it failed, undefined
 * when it succeeded. `onPoll` runs after each answer (the import's progress and heartbeat).
 */
export async function waitForJob(
  job: Job,
  call: <T>(request: Promise<T>) => Promise<T>,
  signal: AbortSignal,
  onPoll: () => void,
): Promise<QueryJobFailure | undefined> {
  for (let attempt = 0; ; attempt++) {
    const [metadata] = (await call(job.getMetadata())) as [JobStatus, ...unknown[]];
    onPoll();
    const status = metadata.status;
    if (status?.state === 'DONE') return status.errorResult ? new QueryJobFailure(status.errorResult) : undefined;
    await sleep(POLL_DELAYS_MS[Math.min(attempt, POLL_DELAYS_MS.length - 1)], undefined, { signal });
  }
}

/** One page of a finished job's result, unparsed, TIMESTAMP as int64 microseconds. */
export async function readResultPage(job: Job, pageRows: number, pageToken: string | undefined): Promise<RowsPage> {
  const [, , response] = await job.getQueryResults({
    autoPaginate: false,
    skipParsing: true,
    maxResults: pageRows,
    ...(pageToken ? { pageToken } : {}),
  });
  return response ?? {};
}

/** Asks BigQuery to stop the job; best effort (it ends on its own), never throws. */
export async function cancelJob(job: Job, call: <T>(request: Promise<T>) => Promise<T>): Promise<void> {
  await call(job.cancel()).catch(() => undefined);
}
