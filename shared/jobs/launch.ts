import type { Principal } from '../auth/principal';
import { config } from '../config';
import { AppError } from '../errors/app-error';
import type { LaunchMode } from '../model/job';

/**
 * Where a job's work step runs (docs/scale.md, section 1). The starter writes what the job
 * already knows into the machine's input (`launch`): the bytes of its inputs, the stage's
 * threshold and the caller's choice; the state machine's `ChooseLaunch` state reads them and
 * sends the work to a Lambda invocation or to a Fargate task of the same worker
 * (infra/fargate-branch.ts). Nothing else decides.
 */

/** What `ChooseLaunch` reads; every job's input carries it. */
export interface JobLaunch {
  readonly mode: LaunchMode;
  /** Bytes of the job's inputs as far as the starter knows them (0 when it does not). */
  readonly input_bytes: number;
  /** The stage's FARGATE_ABOVE_BYTES when the job started: `auto` runs on Fargate from here. */
  readonly fargate_above_bytes: number;
}

/** The launch of a job the starter knows `inputBytes` of. */
export function jobLaunch(mode: LaunchMode = 'auto', inputBytes = 0): JobLaunch {
  return { mode, input_bytes: Math.max(0, Math.round(inputBytes)), fargate_above_bytes: config.fargateAboveBytes };
}

/** The permission that lets a caller force a launch type: it spends the tenant's money, so the admin's. */
export const FORCE_LAUNCH_PERMISSION = 'quota:manage';

/**
 * The mode a caller asked for, `auto` when none: forcing `lambda` or `fargate` is a tenant
 * admin's (10-403 naming the permission otherwise).
 */
export function requestedLaunch(principal: Principal, mode: LaunchMode | undefined): LaunchMode {
  if (mode === undefined || mode === 'auto') return 'auto';
  if (!principal.permissions.includes(FORCE_LAUNCH_PERMISSION))
    throw new AppError('10-403', {
      message: 'Only a tenant admin may choose where a job runs',
      extraDetails: { required_permission: FORCE_LAUNCH_PERMISSION, field: 'launch' },
    });
  return mode;
}

/** The variable that carries the machine's input into a Fargate task (its container override). */
export const JOB_INPUT_VARIABLE = 'JOB_INPUT';

/** What ECS lets a RunTask's container overrides hold, in characters of their JSON. */
export const TASK_OVERRIDES_LIMIT = 8192;

/** Room the overrides' JSON takes around the input: the container's and the variable's names. */
const OVERRIDE_FRAME = 256;

/**
 * Whether a machine input fits a Fargate task's container override, where it travels as one
 * JSON-escaped string (infra/fargate-branch.ts). A recipe run of about twenty nodes or more does
 * not: it runs on Lambda (docs/decisions.md, "Job inputs past a task's override").
 */
export function fitsTaskOverride(input: unknown): boolean {
  return JSON.stringify(JSON.stringify(input)).length + OVERRIDE_FRAME <= TASK_OVERRIDES_LIMIT;
}

/** The variable of an engine task definition that names the worker it runs (functions/jobs/fargate-task.ts). */
export const JOB_WORKER_VARIABLE = 'JOB_WORKER';
