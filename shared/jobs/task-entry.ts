import { randomUUID } from 'node:crypto';
import { logger } from '../log';
import { JOB_TRANSIENT, JobFailure } from './failure';
import type { JobInput } from './job-ref';
import { JOB_INPUT_VARIABLE, JOB_WORKER_VARIABLE } from './launch';
import { markFailed } from './status';
import { flushRunEvents } from '../openlineage/emit';
import type { TaskWorkers, WorkerHandler } from './task-workers';

/**
 * A job's work step as an ECS Fargate task (docs/scale.md, section 1): the same worker
 * handler a Lambda runs (`jobWorker`, shared/job-workers/worker-step.ts: heartbeats, progress, the
 * watchdog, CPU usage, failure mapping), called with the machine's input from JOB_INPUT.
 *
 * What differs is only how the outcome leaves: `ecs:runTask.sync` sees an exit code, not an
 * error name. So the task does here what the Lambda path leaves to the machine: it retries
 * Job.Transient failures with the work step's own Retry policy, and records any other failure
 * of the worker in the job's execution (markFailed, as the recorder would) before it exits
 * with FAILED_EXIT_CODE. The machine's Catch then hands the stopped task to the recorder,
 * whose write finds the job already ended. A task that dies without an answer (killed,
 * out of memory) leaves the recording to the recorder, which reads the task's exit
 * (shared/jobs/failure.ts).
 */

/** The exit of a task whose worker failed and recorded why. */
export const FAILED_EXIT_CODE = 1;

/**
 * The work step's Retry of Job.Transient (statemachines/templates/single-step.asl.json; a unit
 * test keeps the two equal): a task gives its transient failures the attempts a Lambda gets.
 */
export const TRANSIENT_RETRY = { intervalSeconds: 5, maxAttempts: 3, backoffRate: 2, maxDelaySeconds: 60 } as const;

/** Step Functions' FULL jitter: a random wait up to the attempt's backoff. */
function transientDelayMs(attempt: number): number {
  const { intervalSeconds, backoffRate, maxDelaySeconds } = TRANSIENT_RETRY;
  return Math.random() * Math.min(maxDelaySeconds, intervalSeconds * backoffRate ** (attempt - 1)) * 1000;
}

/** The machine's input from the task's environment; a task started without one is a deployment error. */
export function taskInput(environment: NodeJS.ProcessEnv = process.env): JobInput<unknown> {
  const text = environment[JOB_INPUT_VARIABLE];
  if (text === undefined || text === '') throw new Error(`${JOB_INPUT_VARIABLE} is not set: the task has no job`);
  return JSON.parse(text) as JobInput<unknown>;
}

/**
 * Runs one job's work in this task and answers the process's exit code: 0 when the work
 * completed, FAILED_EXIT_CODE when it failed (recorded), or when it no longer owned its job.
 */
export async function runJobTask(handler: WorkerHandler, input: JobInput<unknown>): Promise<number> {
  const awsRequestId = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await handler(input, { awsRequestId });
      return 0;
    } catch (error) {
      if (error instanceof Error && error.name === JOB_TRANSIENT && attempt <= TRANSIENT_RETRY.maxAttempts) {
        logger.info('job task retries a transient failure', { jobId: input.job.job_id, attempt });
        await new Promise((resolve) => setTimeout(resolve, transientDelayMs(attempt)));
        continue;
      }
      // jobWorker throws a JobFailure for every failure but a superseded job's, which records nothing.
      if (error instanceof JobFailure) await markFailed(input.job, error.jobError);
      // The FAIL event that write sent (docs/lineage.md) goes before the process exits.
      await flushRunEvents();
      return FAILED_EXIT_CODE;
    }
  }
}

/** Runs the worker JOB_WORKER names, of `workers`, on the task's input; answers the exit code. */
export async function runNamedTask(
  workers: TaskWorkers,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const name = environment[JOB_WORKER_VARIABLE] ?? '';
  const load = Object.hasOwn(workers, name) ? workers[name] : undefined;
  if (!load) throw new Error(`${JOB_WORKER_VARIABLE} names no task worker: "${name}"`);
  const { handler } = await load();
  return runJobTask(handler, taskInput(environment));
}

/**
 * The task's process (functions/jobs/fargate-task.ts): runs its worker and exits with the code
 * `ecs:runTask.sync` reads; 1 when the worker could not even start.
 */
export function startJobTask(workers: TaskWorkers): void {
  // ECS stops a task with SIGTERM, then SIGKILL: the task's storage goes with it, and the
  // machine's Catch records the stop, so there is nothing to finish here.
  process.once('SIGTERM', () => process.exit(143));
  runNamedTask(workers).then(
    (code) => process.exit(code),
    (error: unknown) => {
      logger.error('job task failed', { error: error as Error });
      process.exit(1);
    },
  );
}
