import { nodeSchemaAnalysisJob } from '../../shared/datasets/jobs';
import { analyseNodeSchema, removeNodeAnalysisFile } from '../../shared/datasets/node-analysis-work';
import { jobWorker } from '../../shared/job-workers/worker-step';

/** The analysis step of a recipe node's output (shared/datasets/node-analysis-work.ts). */
export const handler = jobWorker(nodeSchemaAnalysisJob, { stage: 'READING', percent: 0 }, analyseNodeSchema, {
  onFailure: removeNodeAnalysisFile,
});
