import { installAppJob, uninstallAppJob } from '../shared/apps/install-job';
import { importJob, schemaAnalysisJob } from '../shared/data-tables/jobs';
import { nodeSchemaAnalysisJob } from '../shared/datasets/jobs';
import { recipeRunJob } from '../shared/datasets/jobs';
import { directExportJob, multiPartExportJob, targetExportJob } from '../shared/exports/jobs';
import { transferJob } from '../shared/transfers/jobs';
import type { JobDeclaration, WorkerSpec } from '../shared/jobs/define-job';

/**
 * Every asynchronous job of the service. CDK deploys a state machine and a worker for each,
 * the twin runs them, and routes start them by their declaration (`access.startsJobs`).
 */
export const jobs: readonly JobDeclaration[] = [
  importJob,
  schemaAnalysisJob,
  recipeRunJob,
  nodeSchemaAnalysisJob,
  directExportJob,
  multiPartExportJob,
  targetExportJob,
  transferJob,
  installAppJob,
  uninstallAppJob,
];

/**
 * The state machines' Catch target for every job: it records the caught failure in the
 * job's execution. It only writes one item.
 */
export const RECORD_JOB_FAILURE: WorkerSpec = {
  name: 'record-job-failure',
  handler: 'jobs/record-job-failure',
  timeoutSeconds: 60,
  memoryMb: 256,
  access: { table: 'write' },
};

/**
 * Sends the OpenLineage end events queued for tenants' own endpoints (docs/lineage.md), every
 * minute: the status write that ends a job may be an API route's, which has no outbound guard.
 */
export const DRAIN_LINEAGE_OUTBOX: WorkerSpec = {
  name: 'drain-lineage-outbox',
  handler: 'jobs/drain-lineage-outbox',
  timeoutSeconds: 60,
  memoryMb: 256,
  access: { table: 'write' },
  everyMinutes: 1,
};

/** The jobs' functions: each job's worker, the failure recorder, and the lineage outbox's drain. */
export function workersOf(declared: readonly JobDeclaration[]): WorkerSpec[] {
  return [...declared.map((job) => job.worker), RECORD_JOB_FAILURE, DRAIN_LINEAGE_OUTBOX];
}
