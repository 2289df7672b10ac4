import type { ItemKey } from '../db/keys';

export type JobKind = 'import' | 'schema-analysis';

/**
 * Where a job's status lives, carried in the state machine's input so that every step,
 * including the generic failure recorder, can write it without knowing the job's kind.
 */
export interface JobRef {
  readonly tenant_id: string;
  readonly job_id: string;
  readonly kind: JobKind;
  /** The item whose `attribute` holds the JobExecution (a data version). */
  readonly subject: ItemKey;
  readonly attribute: JobAttribute;
  /** The item whose `active_job` admits one job at a time; released when the job ends. */
  readonly lock?: ItemKey;
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
}
