import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { logger } from '../log';
import type { JobInput, JobRef } from './job-ref';
import { jobErrorOf } from './failure';
import { markFailed } from './status';

let sfn: SFNClient | undefined;

/** The state machine of each job kind (statemachines/<name>.asl.json). */
const MACHINE_VARIABLES = {
  import: 'IMPORT_STATE_MACHINE_ARN',
  'schema-analysis': 'SCHEMA_ANALYSIS_STATE_MACHINE_ARN',
} as const;

function jobLimits(): JobInput<never>['limits'] {
  return { inactivity_seconds: config.jobInactivitySeconds };
}

/**
 * Starts the job's state machine, named after the job so a retried start cannot run it
 * twice. If the start fails, the job is failed at once: nothing is left PENDING forever.
 */
export async function startJob<P>(job: JobRef, params: P): Promise<void> {
  sfn ??= new SFNClient({});
  const input: JobInput<P> = { job, limits: jobLimits(), params };
  try {
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: config.stateMachineArn(MACHINE_VARIABLES[job.kind]),
        name: job.job_id,
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    logger.error('job start failed', { jobId: job.job_id, kind: job.kind, error: error as Error });
    await markFailed(job, jobErrorOf(new AppError('10-500', { extraDetails: { cause: 'the job could not be started' } })));
  }
}
