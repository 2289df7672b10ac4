import { installAppJob } from '../../shared/apps/install-job';
import { provisionInstall } from '../../shared/apps/install-work';
import { jobWorker } from '../../shared/jobs/worker-step';

/**
 * The install job's step: the app's SDK user with the manifest's roles, then the install
 * INSTALLED with it, in the write that completes the job (shared/apps/installs.ts).
 */
export const handler = jobWorker(installAppJob, { stage: 'WRITING', percent: 0 }, async ({ job, params }) => ({
  progress: { stage: 'DONE', percent: 100 },
  fields: await provisionInstall(job, params.bundle_id),
  output: { bundle_id: params.bundle_id },
}));
