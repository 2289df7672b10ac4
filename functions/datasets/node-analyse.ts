import { nodeSchemaAnalysisJob } from '../../shared/datasets/jobs';
import { nodeAnalyses } from '../../shared/datasets/node-analyses';
import { nodeAnalysisStatus, recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { datasetAnalysisRoutes } from './analysis-routes';

export const handler = httpHandler(datasetAnalysisRoutes.analyseNode, async ({ params, body, principal }) => {
  // FULL analysis is its own permission, "Analyze recipe schema" (spec 5.2), as for data versions.
  if (body.depth === 'FULL' && !principal.permissions.includes('schema:analyze')) {
    throw new AppError('10-403', { extraDetails: { required_permission: 'schema:analyze' } });
  }
  const launch = requestedLaunch(principal, body.launch);
  await assertQuotaAllowsStart(principal.tenantId);
  const node = await recipeNodeRef(principal.tenantId, params);
  const { job, request, inputBytes } = await nodeAnalyses.begin(node, body.depth);
  await startJob(
    nodeSchemaAnalysisJob,
    job,
    {
      dataset_id: node.datasetId,
      version_number: node.graphVersion,
      node_id: node.nodeId,
      run_id: request.run_id,
      use_sample: request.use_sample,
      depth: request.depth,
    },
    jobLaunch(launch, inputBytes),
  );
  return { status: 202, body: await nodeAnalysisStatus(node, job.job_id) };
});
