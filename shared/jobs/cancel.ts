import { ExecutionDoesNotExist, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { logger } from '../log';
import type { JobError, JobStatus } from '../model/job';
import type { StartableJob } from '../resource-access';
import { stateMachineArnVariable } from './define-job';
import { jobErrorOf } from './failure';
import type { JobRef } from './job-ref';
import { MAX_BEAT_MS } from './pulse';
import { sfn } from './start';
import { markAborted, type StoredExecution } from './status';
import { executionView } from './view';

/**
 * Cancelling a job a user started (docs/decisions.md, "Cancelling a job"). One path for every
 * kind and every backend:
 *
 * 1. the execution is marked ABORTED by a conditional write, only from PENDING or
 *    IN_PROGRESS, in the transaction that also releases the job's lock, claim and
 *    credentials (status.ts markAborted), so what the job would have produced never shows;
 * 2. Step Functions' StopExecution stops the job's execution: no further state runs (no
 *    retry, no failure recorder), and Step Functions itself stops a `.sync` task it waits on
 *    (an ECS task, an Athena query);
 * 3. a Lambda worker, which StopExecution does not interrupt, sees its next heartbeat refused
 *    within seconds (pulse.ts), aborts its engine and removes what it wrote; its CPU time up
 *    to then is counted as a failed step's is (cpu-usage.ts).
 *
 * A retried cancel of an ABORTED job answers as the first did (and stops the execution
 * again, which is harmless); a job that ended otherwise is refused with 90-1001 (409) naming
 * its status: the spec's catalogue has no "job is not running" code (docs/errors.md).
 */

/** What an aborted job's execution.error holds: the catalogue's 10-444, saying who stopped it. */
export const ABORTED_BY_USER: JobError = jobErrorOf(
  new AppError('10-444', { extraDetails: { cause: 'the job was cancelled by a user' } }),
);

/** A job's current execution as its subject holds it, with the reference its status writes use. */
export interface CurrentJob {
  readonly ref: JobRef;
  readonly execution: StoredExecution;
}

/** Each refused abort means the job moved on; one read then tells how it ended. */
const CANCEL_ATTEMPTS = 3;

/** The answer to a cancel of a job that is not running: 90-1001, with the job and its status. */
export function notRunning(jobId: string, status: JobStatus | 'REPLACED'): AppError {
  return new AppError('90-1001', { params: [status], extraDetails: { job_id: jobId, status } });
}

/** The ARN of the execution that runs `jobId`: executions are named after their job (start.ts). */
export function executionArnOf(job: StartableJob, jobId: string): string {
  const machine = config.stateMachineArn(stateMachineArnVariable(job));
  return `${machine.replace(':stateMachine:', ':execution:')}:${jobId}`;
}

/**
 * Stops the job's execution. One that does not exist was never started (a start that failed,
 * or a cancel that won the race against it: the worker's first status write is refused then).
 */
async function stopExecution(job: StartableJob, jobId: string): Promise<void> {
  try {
    await sfn().send(
      new StopExecutionCommand({
        executionArn: executionArnOf(job, jobId),
        error: 'Job.Aborted',
        cause: ABORTED_BY_USER.cause,
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionDoesNotExist) return;
    // The job is ABORTED already and its worker stops on its own; a retried cancel stops the execution again.
    logger.error('stopping an aborted job failed', { jobId, kind: job.name, error: error as Error });
    throw error;
  }
}

/**
 * Cancels the job `current` reads (see above). Resolves once the job is ABORTED and its
 * execution stopped; 90-1001 when it had ended otherwise. `current` is read again after a
 * refused write; a job that another took the place of meanwhile is not running either.
 */
export async function cancelJob(job: StartableJob, current: () => Promise<CurrentJob>): Promise<void> {
  let jobId: string | undefined;
  for (let attempt = 1; attempt <= CANCEL_ATTEMPTS; attempt += 1) {
    const { ref, execution } = await current();
    jobId ??= ref.job_id;
    if (ref.job_id !== jobId) throw notRunning(jobId, 'REPLACED');
    if (ref.kind !== job.name) throw new Error(`job ${ref.job_id} is a ${ref.kind} job, not ${job.name}`);
    // A job whose worker went silent reads as FAILED (10-1047): it is not running.
    const { status } = executionView(execution, Date.now(), config.jobInactivitySeconds);
    if (status === 'ABORTED') return stopExecution(job, ref.job_id);
    if (status === 'COMPLETED' || status === 'FAILED') throw notRunning(ref.job_id, status);
    if (await markAborted(ref, ABORTED_BY_USER)) {
      logger.info('job cancelled', { jobId: ref.job_id, kind: ref.kind });
      return stopExecution(job, ref.job_id);
    }
  }
  throw new AppError('10-500', { extraDetails: { cause: `job ${jobId} kept changing while it was cancelled` } });
}

/**
 * How long a cancelled job's worker may still run: until its next heartbeat (pulse.ts), then
 * its engine's kill and the settling of the uploads it had started. A job whose output has a
 * fixed place (a recipe node's) keeps that place for this long after its cancel, so a job
 * started meanwhile cannot be overwritten by a late upload of the cancelled one.
 */
export const WORKER_STOPS_WITHIN_MS = 3 * MAX_BEAT_MS;

/** The job was cancelled less than WORKER_STOPS_WITHIN_MS ago: its worker may still be stopping. */
export function stillStopping(execution: StoredExecution, now: number): boolean {
  return (
    execution.status === 'ABORTED' &&
    execution.ended_date !== undefined &&
    now - Date.parse(execution.ended_date) < WORKER_STOPS_WITHIN_MS
  );
}

/** Reading the output of an aborted job: 10-444 (the catalogue's "job has been aborted"). */
export function refuseIfAborted(execution: Pick<StoredExecution, 'status' | 'job_id'> | undefined): void {
  if (execution?.status === 'ABORTED')
    throw new AppError('10-444', { extraDetails: { job_id: execution.job_id, cause: ABORTED_BY_USER.cause } });
}
