import { uninstallAppJob } from '../../shared/apps/install-job';
import { deprovisionInstall } from '../../shared/apps/install-work';
import { jobWorker } from '../../shared/jobs/worker-step';

/**
 * The uninstall job's step: the app's SDK user, sessions, runs and values deleted, then the
 * install NOT_INSTALLED, in the write that completes the job (shared/apps/installs.ts).
 */
export const handler = jobWorker(uninstallAppJob, { stage: 'WRITING', percent: 0 }, async ({ job, params }) => ({
  progress: { stage: 'DONE', percent: 100 },
  fields: await deprovisionInstall(job, params.bundle_id),
  output: { bundle_id: params.bundle_id },
}));
