import { exportDirect } from '../../shared/exports/export-work';
import { directExportJob } from '../../shared/exports/jobs';
import { jobWorker } from '../../shared/job-workers/worker-step';

/** The direct export step: the output into the caller's store (shared/exports/export-work.ts). */
export const handler = jobWorker(directExportJob, { stage: 'READING', percent: 0 }, exportDirect);
