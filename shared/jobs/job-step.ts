import type { JobProgress } from '../model/job';
import type { JobRef } from './job-ref';
import type { JobPulse } from './pulse';

/**
 * What a job's work is given and gives back. The aggregates' work functions are written against
 * these alone; the worker that runs them (shared/job-workers/worker-step.ts) sits above them.
 */

/** What a job's work receives: the job, its parsed parameters, its heartbeat and a scratch folder. */
export interface JobStep<P> {
  readonly job: JobRef;
  readonly params: P;
  /** Progress, stages, the inactivity watchdog and the abort signal. */
  readonly pulse: JobPulse;
  /** A private folder under WORK_DIRECTORY, removed when the step ends. */
  readonly workDir: string;
  /**
   * Set when the machine calls the step again after a `.sync` state it ran for it
   * (WorkerSpec.athenaQueries): what the step's previous call handed over (its output), and
   * the outcome of that state.
   */
  readonly resumed?: { readonly handed: unknown; readonly outcome: unknown };
}

/** How the work ended well: the last progress, the fields to set on the job's item, and the step's output. */
export interface JobOutcome<R> {
  readonly progress: JobProgress;
  /** Set on the job's subject item together with COMPLETED (a version's metadata, say). */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly output: R;
  /**
   * The work is not done: its output hands the machine something to wait for (an Athena
   * query) for at most `forSeconds`, and the machine calls the step again with its outcome.
   * The job stays IN_PROGRESS. Only work that counts its own CPU (countsOwnCpu) may continue.
   */
  readonly continues?: { readonly forSeconds: number };
}
