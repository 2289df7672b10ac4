import { schemaAnalysisJob } from '../../shared/data-tables/jobs';
import { analyseVersionSchema } from '../../shared/data-tables/schema-analysis-work';
import { jobWorker } from '../../shared/job-workers/worker-step';

/** The schema analysis step: the version's Parquet profiled (shared/data-tables/schema-analysis-work.ts). */
export const handler = jobWorker(schemaAnalysisJob, { stage: 'READING', percent: 0 }, analyseVersionSchema);
