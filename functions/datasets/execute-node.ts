import { actorOf } from '../../shared/db/actor';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { readRunStatus } from '../../shared/datasets/response';
import { queueRun } from '../../shared/datasets/run-queue';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { startJob } from '../../shared/jobs/start';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.executeNode, async ({ params, body, principal }) => {
  const depth = body.schema_analysis_depth ?? 'SHALLOW';
  // FULL analysis is its own permission, "Analyze recipe schema" (spec 2.7, 5.2).
  if (depth === 'FULL' && !principal.permissions.includes('schema:analyze')) {
    throw new AppError('10-403', { extraDetails: { required_permission: 'schema:analyze' } });
  }
  const { tenantId } = principal;
  const { dataset_id: datasetId, version_number: graphVersion, node_id: nodeId } = params;
  const request = { use_sample: body.use_sample, schema_analysis_depth: depth };
  const { job, build } = await queueRun(tenantId, actorOf(principal), datasetId, graphVersion, nodeId, request);
  await startJob(recipeRunJob, job, { dataset_id: datasetId, version_number: graphVersion, node_id: nodeId, ...request, build });
  return { status: 202, body: await readRunStatus(tenantId, datasetId, graphVersion, nodeId) };
});
