import { jobWorker } from '../../shared/job-workers/worker-step';
import { transferJob } from '../../shared/transfers/jobs';
import { transferToPricing } from '../../shared/transfers/transfer-work';

/** The transfer step: a version's rows into the pricing system (shared/transfers/transfer-work.ts). */
export const handler = jobWorker(transferJob, { stage: 'READING', percent: 0 }, transferToPricing);
