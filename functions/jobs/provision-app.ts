import { installAppJob } from '../../shared/apps/install-job';
import { installStep } from '../../shared/apps/install-work';
import { jobWorker } from '../../shared/job-workers/worker-step';

/**
 * The install job's step: the app's SDK user with the manifest's roles, then the install
 * INSTALLED with it, in the write that completes the job (shared/apps/installs.ts).
 */
export const handler = jobWorker(installAppJob, { stage: 'WRITING', percent: 0 }, installStep);
