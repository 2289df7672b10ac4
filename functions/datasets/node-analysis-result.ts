import { nodeAnalysisResult, recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { httpHandler } from '../../shared/http/handler';
import { datasetAnalysisRoutes } from './analysis-routes';

export const handler = httpHandler(datasetAnalysisRoutes.nodeAnalysisResult, async ({ params, principal }) => ({
  body: await nodeAnalysisResult(await recipeNodeRef(principal.tenantId, params)),
}));
