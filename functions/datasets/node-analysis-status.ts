import { nodeAnalysisStatus, recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { httpHandler } from '../../shared/http/handler';
import { datasetAnalysisRoutes } from './analysis-routes';

export const handler = httpHandler(datasetAnalysisRoutes.nodeAnalysisStatus, async ({ params, query, principal }) => ({
  body: await nodeAnalysisStatus(await recipeNodeRef(principal.tenantId, params), query.job_id),
}));
