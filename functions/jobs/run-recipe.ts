import { recipeRunJob } from '../../shared/datasets/jobs';
import { runRecipeBuild } from '../../shared/datasets/recipe-build';
import { jobWorker } from '../../shared/job-workers/worker-step';
import { releaseScheduledBuild } from '../../shared/schedules/release-build';

/** The recipe-run step: builds each planned node, upstream first (shared/datasets/recipe-build.ts). */
export const handler = jobWorker(recipeRunJob, { stage: 'RUNNING', percent: 0 }, runRecipeBuild, {
  // Each node's build counts its CPU with its engine process's (shared/datasets/recipe-node-build.ts).
  countsOwnCpu: true,
  // A released schedule's build is released once COMPLETED (docs/schedules.md).
  onCompleted: releaseScheduledBuild,
});
