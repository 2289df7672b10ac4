import { nodeSchemaAnalysisJob } from '../../shared/datasets/jobs';
import { nodeAnalyses, nodeAnalysisJobRef } from '../../shared/datasets/node-analyses';
import { nodeAnalysisStatus, recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { datasetCancelRoutes } from './cancel-routes';

/** Cancels the analysis last asked for on the node's output (shared/jobs/cancel.ts) and answers its status. */
export const handler = httpHandler(datasetCancelRoutes.cancelNodeAnalysis, async ({ params, principal }) => {
  const node = await recipeNodeRef(principal.tenantId, params);
  let jobId: string | undefined;
  await cancelJob(nodeSchemaAnalysisJob, async () => {
    const execution = (await nodeAnalyses.find(node))?.analysis_execution;
    if (!execution)
      throw new AppError('20-1026', { params: ['recipe node', node.datasetId, node.graphVersion, node.nodeId] });
    jobId = execution.job_id;
    return { ref: nodeAnalysisJobRef(node, execution.job_id), execution };
  });
  return { body: await nodeAnalysisStatus(node, jobId) };
});
