import { exportMultiPart } from '../../shared/exports/export-work';
import { multiPartExportJob } from '../../shared/exports/jobs';
import { jobWorker } from '../../shared/job-workers/worker-step';

/** The multi-part export step: the output PUT to the caller's part URLs (shared/exports/export-work.ts). */
export const handler = jobWorker(multiPartExportJob, { stage: 'READING', percent: 0 }, exportMultiPart);
