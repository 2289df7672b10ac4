import { isAppError } from '../errors/app-error';
import { AppError } from '../errors/app-error';
import { boundedDetails } from '../errors/problem';
import type { ErrorCode } from '../errors/catalogue';
import type { JobError } from '../model/job';
import { logger } from '../log';
import type { JobInput } from './job-ref';
import { markFailed } from './status';
import { flushRunEvents } from '../openlineage/emit';

/**
 * How a worker's failure travels through Step Functions to the execution's error. The
 * worker throws a JobFailure whose name is the ASL error (Retry matches Job.Transient) and
 * whose message is the JobError as JSON; the Catch hands {Error, Cause} to the recorder,
 * which turns it back into a JobError. Failures Step Functions itself raises (timeouts)
 * become 10-1047; a Fargate task that stopped without an answer 10-444 or 10-500 by why it
 * stopped; anything unexpected becomes 10-500.
 */
export const JOB_FAILED = 'Job.Failed';
export const JOB_TRANSIENT = 'Job.Transient';

/** Failures worth another attempt: timeouts, throttling, provider hiccups. */
const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  '30-1100',
  '30-1110',
  '30-1303',
  '30-1307',
  '30-1005',
  '30-1002',
  '30-1413',
]);

/** The error a runner gives a job that died with it and could not run again (the twin's journal). */
export const RUNNER_RESTARTED = 'Job.RunnerRestarted';

/** What the user reads of a job stopped from outside: its message, and a cause free of Step Functions' or Lambda's names. */
interface Stopped {
  readonly message: string;
  readonly cause: string;
}

const TIME_LIMIT: Stopped = {
  message: 'The job ran past its time limit and was stopped; resubmit it on less data or contact support',
  cause: 'time limit: the step ran past its time limit',
};

/** Errors that say the step ran too long, went silent or died with its runner: 10-1047, saying which. */
const INACTIVITY_ERRORS: Readonly<Record<string, Stopped>> = {
  'States.Timeout': TIME_LIMIT,
  'Sandbox.Timedout': TIME_LIMIT,
  'States.HeartbeatTimeout': {
    message:
      'The job timed out due to processing inactivity: its worker stopped reporting; resubmit or contact support',
    cause: 'inactivity: the worker sent no heartbeat in time',
  },
  [RUNNER_RESTARTED]: {
    message: 'The job was interrupted twice by a restart of the job runner; resubmit it',
    cause: 'the job runner restarted while the job ran, twice',
  },
};

/**
 * Step Functions reports a Lambda that died without answering (killed at its timeout, out of
 * memory, a crashed runtime) as Lambda.Unknown; its Cause tells which.
 */
const LAMBDA_DIED = 'Lambda.Unknown';

/** A Lambda that died without an answer and was not at its timeout: out of memory, or its runtime crashed. */
const WORKER_DIED: Stopped = {
  message: 'The job stopped: its worker ran out of memory or crashed; resubmit it on less data or contact support',
  cause: 'memory or crash: the worker stopped without an answer',
};

const MAX_CAUSE_LENGTH = 1000;

/** How Step Functions fails an `ecs:runTask.sync` step whose task stopped other than with exit code 0. */
const TASK_FAILED = 'States.TaskFailed';

/** The part of the stopped task (DescribeTasks, as Step Functions puts it in the Cause) that says why it stopped. */
interface StoppedTask {
  readonly StopCode?: string;
  readonly StoppedReason?: string;
  readonly Containers?: readonly { readonly ExitCode?: number; readonly Reason?: string }[];
}

/**
 * The JobError of a Fargate task that stopped without completing (infra/fargate-branch.ts).
 * A worker that failed recorded its own code before it exited (shared/jobs/task-entry.ts), so
 * what reaches here is a task stopped from outside (10-444), one that could not start, or one
 * that died: killed, out of memory or crashed (10-500, saying which).
 */
function stoppedTaskError(task: StoppedTask): JobError {
  const container = task.Containers?.[0];
  const reason = [task.StoppedReason, container?.Reason].filter(Boolean).join('; ').slice(0, MAX_CAUSE_LENGTH);
  if (task.StopCode === 'UserInitiated')
    return {
      code: '10-444',
      message: 'The job was aborted: its task was stopped before it finished',
      cause: `task stopped: ${reason || 'by a StopTask call'}`,
    };
  if (task.StopCode === 'TaskFailedToStart')
    return {
      code: '10-500',
      message: 'The job could not start its task; resubmit it or contact support',
      cause: `the job's task could not start: ${reason || 'no reason given'}`,
    };
  const exit = container?.ExitCode === undefined ? 'no exit code' : `exit code ${container.ExitCode}`;
  const killed = container?.ExitCode === 137 ? ' (killed)' : '';
  return {
    code: '10-500',
    ...WORKER_DIED,
    cause: `memory or crash: the task's worker stopped with ${exit}${killed}${reason ? `; ${reason}` : ''}`,
  };
}

function asStoppedTask(cause: unknown): StoppedTask | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  return 'TaskArn' in cause || 'StopCode' in cause || 'Containers' in cause ? (cause as StoppedTask) : undefined;
}

export class JobFailure extends Error {
  constructor(
    readonly jobError: JobError,
    transient: boolean,
  ) {
    super(JSON.stringify(jobError));
    this.name = transient ? JOB_TRANSIENT : JOB_FAILED;
  }
}

function causeOf(error: AppError): string | undefined {
  const stated = error.extraDetails?.cause;
  if (typeof stated === 'string') return stated.slice(0, MAX_CAUSE_LENGTH);
  const root = error.cause;
  // The root's message, not its class: a runtime's names (TypeError, DOMException) say nothing to the user.
  return root instanceof Error
    ? root.message.replace(/^\w*(Error|Exception): /, '').slice(0, MAX_CAUSE_LENGTH)
    : undefined;
}

/** Most characters of a job error's extraDetails as JSON: it travels in Step Functions' Cause (32 KB at most). */
const MAX_DETAILS_LENGTH = 4_000;

/**
 * The error's extraDetails as a job error carries them: bounded as a problem's are, without
 * `cause` (the job error's own field), members in order while they fit MAX_DETAILS_LENGTH.
 */
function jobDetailsOf(error: AppError): Record<string, unknown> | undefined {
  if (error.extraDetails === undefined) return undefined;
  // As JSON reads it back (plain objects, bigints as text): what Step Functions and the table carry.
  const json = JSON.stringify(boundedDetails(error.extraDetails), (_, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  const details: Record<string, unknown> = {};
  let length = 2;
  for (const [name, value] of Object.entries(JSON.parse(json) as Record<string, unknown>)) {
    if (name === 'cause') continue;
    length += JSON.stringify({ [name]: value }).length - 1;
    if (length > MAX_DETAILS_LENGTH) break;
    details[name] = value;
  }
  return Object.keys(details).length > 0 ? details : undefined;
}

/** The JobError of a catalogue error: its code, message, cause and extraDetails (docs/transfers.md). */
export function jobErrorOf(error: AppError): JobError {
  const cause = causeOf(error);
  const extraDetails = jobDetailsOf(error);
  return {
    code: error.code,
    message: error.message,
    ...(cause ? { cause } : {}),
    ...(extraDetails ? { extraDetails } : {}),
  };
}

/** What a worker throws for any error: catalogue errors keep their code, the rest is 10-500. */
export function jobFailureOf(error: unknown): Error {
  if (error instanceof JobFailure) return error;
  if (isAppError(error)) return new JobFailure(jobErrorOf(error), TRANSIENT_CODES.has(error.code));
  const root = error instanceof Error ? error : new Error(String(error));
  if (root.name === 'Job.Superseded') return root;
  return new JobFailure(jobErrorOf(new AppError('10-500', { cause: root })), false);
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function asJobError(value: unknown): JobError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, cause, extraDetails } = value as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  const details =
    typeof extraDetails === 'object' && extraDetails !== null && !Array.isArray(extraDetails)
      ? { extraDetails: extraDetails as Record<string, unknown> }
      : {};
  return { code, message, ...(typeof cause === 'string' ? { cause } : {}), ...details };
}

/**
 * The JobError of a caught state failure. Deployed, a Lambda error's Cause is the runtime's
 * JSON ({errorType, errorMessage, trace}); locally it is the message itself.
 */
export function jobErrorFromState(failure: { readonly Error?: string; readonly Cause?: string }): JobError {
  const name = failure.Error ?? 'States.Runtime';
  const stopped = Object.hasOwn(INACTIVITY_ERRORS, name) ? INACTIVITY_ERRORS[name] : undefined;
  if (stopped) return { code: '10-1047', ...stopped };
  if (name === LAMBDA_DIED) {
    return /timed out/i.test(failure.Cause ?? '')
      ? { code: '10-1047', ...TIME_LIMIT }
      : { code: '10-500', ...WORKER_DIED };
  }
  if (name === TASK_FAILED) {
    const task = asStoppedTask(parseJson(failure.Cause));
    if (task) return stoppedTaskError(task);
  }
  if (name === JOB_FAILED || name === JOB_TRANSIENT) {
    const cause = parseJson(failure.Cause);
    const message =
      typeof cause === 'object' && cause !== null && 'errorMessage' in cause
        ? parseJson(String(cause.errorMessage))
        : cause;
    const recorded = asJobError(message);
    if (recorded) return recorded;
  }
  // Another name of the runner's is an internal: the log has it, the user reads the catalogue's message.
  logger.warn('job failed with an unknown state error', { error: name });
  return jobErrorOf(new AppError('10-500'));
}

/** The state machines' Catch target's input: the caught failure, as Step Functions hands it over. */
export interface FailureInput extends JobInput<unknown> {
  readonly failure?: { readonly Error?: string; readonly Cause?: string };
}

/**
 * Records a job's failure in its execution, for every kind of job (functions/jobs/record-job-failure.ts):
 * the worker's own code when it raised one, 10-1047 when Step Functions timed the step out,
 * 10-500 otherwise. Repeating it is harmless: a job that already ended stays as it is.
 */
export async function recordJobFailure(
  input: FailureInput,
): Promise<{ readonly recorded: boolean; readonly code: string }> {
  const error = jobErrorFromState(input.failure ?? {});
  const recorded = await markFailed(input.job, error);
  logger.info('job failed', { jobId: input.job.job_id, kind: input.job.kind, code: error.code, recorded });
  // The FAIL event the write sent (docs/lineage.md) gets a bounded wait: a Lambda freezes what is left in flight.
  await flushRunEvents();
  return { recorded, code: error.code };
}
