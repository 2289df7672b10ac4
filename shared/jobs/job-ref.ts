import type { ItemKey } from '../db/keys';
import type { JobLaunch } from './launch';

/**
 * Where a job's status lives, carried in the state machine's input so that every step,
 * including the generic failure recorder, can write it without knowing the job's kind.
 */
export interface JobRef {
  readonly tenant_id: string;
  readonly job_id: string;
  /** The job's declaration name (shared/jobs/define-job.ts), e.g. `import`. */
  readonly kind: string;
  /** The item whose `attribute` holds the JobExecution (a data version). */
  readonly subject: ItemKey;
  readonly attribute: JobAttribute;
  /** The item whose `active_job` admits one job at a time; released when the job ends. */
  readonly lock?: ItemKey;
  /** A copy of the subject kept on another item, written with it (see JobMirror). */
  readonly mirror?: JobMirror;
  /**
   * The item holding credentials the job needs only while it runs (sealed): deleted in the
   * transaction that ends the job, whether it completed or failed.
   */
  readonly secret?: ItemKey;
  /**
   * A set on another item that holds the job's id while it runs (an export's claim on its
   * target, which keeps the target from changing): the id leaves the set in the transaction
   * that ends the job.
   */
  readonly claim?: JobClaim;
  /**
   * Fields set on the subject in the transaction that records the job's failure, by whichever
   * path records it (the worker's start, the failure recorder, a reader finding it abandoned):
   * what a failed job puts back, such as an app install's status (shared/apps/installs.ts).
   */
  readonly failureFields?: Readonly<Record<string, unknown>>;
}

export interface JobClaim {
  readonly item: ItemKey;
  /** A string set attribute of `item`. */
  readonly attribute: string;
}

/**
 * An item that keeps a copy of the subject's fields under `attribute` (a data table's latest
 * version, so that listing tables needs no read per table). Every status write and every
 * field the job produces goes to the copy too, in the same transaction and under the same
 * conditions: while the copy names the job it is the subject's twin.
 */
export interface JobMirror {
  readonly item: ItemKey;
  readonly attribute: string;
}

export type JobAttribute = 'execution' | 'analysis_execution';

/** Bounds of a run, fixed when the job starts. */
export interface JobLimits {
  /** A worker that sees no data arrive for this long stops with 10-1047. */
  readonly inactivity_seconds: number;
}

/** Input of every job state machine: the job plus its kind's parameters. */
export interface JobInput<P> {
  readonly job: JobRef;
  readonly limits: JobLimits;
  readonly params: P;
  /** Where the work step runs: what the machine's ChooseLaunch state reads (shared/jobs/launch.ts). */
  readonly launch?: JobLaunch;
}
