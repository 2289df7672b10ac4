import { jobErrorFromState } from '../../shared/jobs/failure';
import type { JobInput } from '../../shared/jobs/job-ref';
import { markFailed } from '../../shared/jobs/status';
import { logger } from '../../shared/log';

/** The state machines' Catch target: the caught failure, as Step Functions hands it over. */
export interface FailureInput extends JobInput<unknown> {
  readonly failure?: { readonly Error?: string; readonly Cause?: string };
}

/**
 * Records a job's failure in its execution, for every kind of job: the worker's own code
 * when it raised one, 10-1047 when Step Functions timed the step out, 10-500 otherwise.
 * Repeating it is harmless: a job that already ended stays as it is.
 */
export async function handler(input: FailureInput): Promise<{ readonly recorded: boolean; readonly code: string }> {
  const error = jobErrorFromState(input.failure ?? {});
  const recorded = await markFailed(input.job, error);
  logger.info('job failed', { jobId: input.job.job_id, kind: input.job.kind, code: error.code, recorded });
  return { recorded, code: error.code };
}
