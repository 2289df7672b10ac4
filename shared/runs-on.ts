/**
 * Where this process runs a job's work, for the engine's and the jobs' records alike. A fact of
 * the process, set by its launch (infra/stacks/engine-tasks.ts, the twin's ECS stand-in), so it
 * sits below both rather than in shared/jobs/launch.ts, which decides launches.
 */

/** The variable a Fargate task's definition sets (and the twin's stand-in): how a worker knows it runs there. */
export const RUNS_ON_VARIABLE = 'JOB_RUNS_ON';

/** `fargate` in a Fargate task, `lambda` otherwise. */
export function runsOn(): 'lambda' | 'fargate' {
  return process.env[RUNS_ON_VARIABLE] === 'fargate' ? 'fargate' : 'lambda';
}
