import type { WorkerHandler } from '../../shared/jobs/task-entry';

/**
 * The workers a Fargate task can run, by worker name, each loaded only when its task starts:
 * the one bundle of fargate-task.ts carries them all, so every engine task definition runs the
 * same code. CDK and the twin check that every worker declaring `fargate` is here
 * (fargateWorkerModules).
 */
export const TASK_WORKERS: Readonly<Record<string, () => Promise<{ readonly handler: WorkerHandler }>>> = {
  'import-data-version': () => import('./import-data-version'),
  'analyse-schema': () => import('./analyse-schema'),
  'run-recipe': () => import('./run-recipe'),
  'analyse-node-schema': () => import('./analyse-node-schema'),
  'export-direct': () => import('./export-direct'),
  'export-multi-part': () => import('./export-multi-part'),
  'export-to-target': () => import('./export-to-target'),
  'transfer-to-pricing': () => import('./transfer-to-pricing'),
};

/** Fails unless each of `workers` (those that declare `fargate`) has its module here. */
export function assertTaskWorkers(workers: readonly { readonly name: string }[]): void {
  const missing = workers.filter((worker) => !Object.hasOwn(TASK_WORKERS, worker.name)).map((worker) => worker.name);
  if (missing.length > 0)
    throw new Error(
      `workers ${missing.join(', ')} declare fargate but are not in functions/jobs/task-workers.ts: add their modules there`,
    );
}
