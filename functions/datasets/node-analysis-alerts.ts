import { nodeAnalysisResult, recipeNodeRef } from '../../shared/datasets/node-analysis-view';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetAnalysisRoutes } from './analysis-routes';

export const handler = httpHandler(datasetAnalysisRoutes.nodeAlerts, async ({ params, principal }) => {
  const result = await nodeAnalysisResult(await recipeNodeRef(principal.tenantId, params));
  // Alerts come from a FULL profile only.
  if (result.depth !== 'FULL') throw new AppError('20-1062');
  return { body: { depth: result.depth, alerts: result.alerts } };
});
