import { uninstallAppJob } from '../../shared/apps/install-job';
import { uninstallStep } from '../../shared/apps/install-work';
import { jobWorker } from '../../shared/job-workers/worker-step';

/**
 * The uninstall job's step: the app's SDK user, sessions, runs and values deleted, then the
 * install NOT_INSTALLED, in the write that completes the job (shared/apps/installs.ts).
 */
export const handler = jobWorker(uninstallAppJob, { stage: 'WRITING', percent: 0 }, uninstallStep);
