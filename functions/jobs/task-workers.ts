import type { TaskWorkers } from '../../shared/jobs/task-workers';

/**
 * The workers a Fargate task can run, by worker name (shared/jobs/task-workers.ts). CDK and the
 * twin check that every worker declaring `fargate` is here (assertTaskWorkers).
 */
export const TASK_WORKERS: TaskWorkers = {
  'import-data-version': () => import('./import-data-version'),
  'analyse-schema': () => import('./analyse-schema'),
  'run-recipe': () => import('./run-recipe'),
  'analyse-node-schema': () => import('./analyse-node-schema'),
  'export-direct': () => import('./export-direct'),
  'export-multi-part': () => import('./export-multi-part'),
  'export-to-target': () => import('./export-to-target'),
  'transfer-to-pricing': () => import('./transfer-to-pricing'),
};
