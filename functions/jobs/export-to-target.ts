import { targetExportJob } from '../../shared/exports/jobs';
import { exportToTarget } from '../../shared/exports/target-export-work';
import { jobWorker } from '../../shared/job-workers/worker-step';

/** The export-to-target step: the output through the target's writer (shared/exports/target-export-work.ts). */
export const handler = jobWorker(targetExportJob, { stage: 'READING', percent: 0 }, exportToTarget);
