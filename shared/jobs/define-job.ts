import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { DEFAULT_WORKER_MEMORY_MB } from '../engine/limits';
import type { ResourceAccess, StartableJob } from '../resource-access';

/**
 * A function that state machines call: a job's work step, or the shared failure recorder.
 * CDK deploys one Lambda per worker; the twin runs its handler module in process.
 */
export interface WorkerSpec {
  /** kebab-case; its ARN placeholder in ASL is the PascalCase form plus FunctionArn. */
  readonly name: string;
  /** Module under functions/ that exports `handler`. */
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly access: ResourceAccess;
  /**
   * Runs DuckDB (@duckdb/node-api): on Lambda the engine and its native binding come from a
   * layer instead of the bundle, and the function gets scratch space for the data it loads.
   */
  readonly engine?: true;
  /**
   * Where the state machine may run the work step: a Lambda invocation always; with
   * `fargate`, also an ECS Fargate task running the same worker (functions/jobs/fargate-task.ts),
   * chosen by the job's `launch` (shared/jobs/launch.ts). CDK derives the task definition, its
   * role and the machine's Choice from this; the twin runs such tasks as processes of their own.
   */
  readonly launchTypes?: readonly LaunchType[];
  /**
   * The work step may hand an Athena query to its machine instead of waiting for it
   * (shared/engine/athena/handoff.ts): the machine gets an `athena:startQueryExecution.sync`
   * state that runs it and calls the worker again with its outcome (infra/athena-branch.ts).
   */
  readonly athenaQueries?: true;
  /**
   * Not a step of a machine: the function runs on its own every this many minutes (an
   * EventBridge rule deployed; a timer on the twin), e.g. the OpenLineage outbox's drain.
   */
  readonly everyMinutes?: number;
}

/**
 * Where a machine puts the outcome of a `.sync` state it ran for the work step (a handed
 * query's execution, or the state's error) before it calls that step again: the step reads it
 * as JobStep.resumed (shared/job-workers/worker-step.ts).
 */
export const SYNC_OUTCOME_KEY = 'sync';

/** What a work step can run on. */
export const LAUNCH_TYPES = ['lambda', 'fargate'] as const;
export type LaunchType = (typeof LAUNCH_TYPES)[number];

/** True when the worker may also run as a Fargate task. */
export function runsOnFargate(worker: Pick<WorkerSpec, 'launchTypes'>): boolean {
  return worker.launchTypes?.includes('fargate') ?? false;
}

/**
 * One asynchronous job, declared once. Everything else is derived from it: the state machine
 * (its name, its definition, the `<NAME>_STATE_MACHINE_ARN` variable), the worker function
 * and its placeholder, the start permission of the routes that list it in
 * `access.startsJobs`, the twin's wiring, and the validation of the parameters the worker
 * receives. Adding a job = this declaration (in the aggregate that owns the job), its worker
 * module, an entry in functions/jobs.ts, and an ASL file only if it needs its own shape.
 */
export interface JobDeclaration<P extends z.ZodType = z.ZodType> extends StartableJob {
  /** kebab-case: the job kind, the state machine's name, and the prefix of job ids. */
  readonly name: string;
  /** What the job does, in one sentence (the state machine's Comment). */
  readonly description: string;
  /** The state machine input's `params`; the worker parses them before it starts. */
  readonly params: P;
  /** The work step. */
  readonly worker: WorkerSpec;
  /**
   * Its own ASL file, relative to statemachines/ (`${WorkerFunctionArn}` names this job's worker,
   * `${RecordJobFailureFunctionArn}` the failure recorder); the single-step template
   * (statemachines/templates/single-step.asl.json) when omitted.
   */
  readonly definitionFile?: string;
}

/**
 * The size of every engine worker: Lambda's largest sensible one, as DuckDB's speed scales with
 * memory and the vCPUs that come with it; its engines are sized from it (engine/limits.ts).
 */
export const ENGINE_WORKER = {
  timeoutSeconds: 900,
  memoryMb: DEFAULT_WORKER_MEMORY_MB,
  engine: true,
  // Work past Lambda's 15 minutes or 10 GiB goes to a Fargate task of the same worker (docs/scale.md).
  launchTypes: ['lambda', 'fargate'],
} as const satisfies Partial<WorkerSpec>;

const KEBAB_CASE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** Declares a job; the name rules are checked here so a typo fails at import, not at deploy. */
export function defineJob<P extends z.ZodType>(declaration: JobDeclaration<P>): JobDeclaration<P> {
  for (const name of [declaration.name, declaration.worker.name]) {
    if (!KEBAB_CASE.test(name)) throw new Error(`job and worker names are kebab-case: ${JSON.stringify(name)}`);
  }
  return declaration;
}

/** `${ImportDataVersionFunctionArn}` names worker import-data-version in ASL. */
export function workerPlaceholder(worker: Pick<WorkerSpec, 'name'>): string {
  return `${worker.name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase())}FunctionArn`;
}

/** `${ImportDataVersionTaskDefinitionArn}` names the Fargate task definition of worker import-data-version in ASL. */
export function taskDefinitionPlaceholder(worker: Pick<WorkerSpec, 'name'>): string {
  return workerPlaceholder(worker).replace(/FunctionArn$/, 'TaskDefinitionArn');
}

/** IMPORT_STATE_MACHINE_ARN for job `import`: how functions learn the machine's ARN. */
export function stateMachineArnVariable(job: StartableJob): string {
  return `${job.name.toUpperCase().replace(/-/g, '_')}_STATE_MACHINE_ARN`;
}

/** A fresh id for a run of `job`: its name, then a UUID (also the execution's name). */
export function newJobId(job: StartableJob): string {
  return `${job.name}-${randomUUID()}`;
}
