import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type * as z from 'zod';
import { perStores } from '../aws/per-stores';
import { traceClient } from '../observability/tracing';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import { logger } from '../log';
import { stateMachineArnVariable, type JobDeclaration } from './define-job';
import { jobErrorOf } from './failure';
import type { JobInput, JobRef } from './job-ref';
import { fitsTaskOverride, jobLaunch, TASK_OVERRIDES_LIMIT, type JobLaunch } from './launch';
import { markFailed } from './status';

/** The Step Functions client every job start and stop goes through (a warm function keeps it per store set). */
export const sfn = perStores(
  () => traceClient(new SFNClient({})),
  (client) => client.destroy(),
);

function jobLimits(): JobInput<never>['limits'] {
  return { inactivity_seconds: config.jobInactivitySeconds };
}

/** A job forced onto a task whose input a task's override cannot carry: refused, not started. */
function inputTooLargeForTask(input: unknown): AppError {
  return new AppError('10-1400', {
    message: 'launch: this job’s input is too large for a Fargate task; start it with launch auto or lambda',
    extraDetails: {
      field: 'launch',
      input_characters: JSON.stringify(JSON.stringify(input)).length,
      limit: TASK_OVERRIDES_LIMIT,
    },
  });
}

/**
 * Starts the job's state machine, named after the job so a retried start cannot run it
 * twice. If the start fails, the job is failed at once: nothing is left PENDING forever.
 * `launch` says where its work may run (shared/jobs/launch.ts): `auto` on inputs of unknown size
 * unless the starter tells.
 */
export async function startJob<P extends z.ZodType>(
  job: JobDeclaration<P>,
  ref: JobRef,
  params: z.input<P>,
  launch: JobLaunch = jobLaunch(),
): Promise<void> {
  if (ref.kind !== job.name) throw new Error(`job ${ref.job_id} is a ${ref.kind} job, not ${job.name}`);
  let input: JobInput<z.input<P>> = { job: ref, limits: jobLimits(), params, launch };
  if (launch.mode !== 'lambda' && !fitsTaskOverride(input)) {
    if (launch.mode === 'fargate') {
      await markFailed(ref, jobErrorOf(inputTooLargeForTask(input)));
      return;
    }
    // `auto`: the machine's Choice would send it to a task that could not start; it stays on Lambda.
    input = { ...input, launch: { ...launch, mode: 'lambda' } };
  }
  try {
    await sfn().send(
      new StartExecutionCommand({
        stateMachineArn: config.stateMachineArn(stateMachineArnVariable(job)),
        name: ref.job_id,
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    logger.error('job start failed', { jobId: ref.job_id, kind: ref.kind, error: error as Error });
    await markFailed(
      ref,
      jobErrorOf(new AppError('10-500', { extraDetails: { cause: 'the job could not be started' } })),
    );
  }
}
