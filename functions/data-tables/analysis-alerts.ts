import { lastAnalysis } from '../../shared/data-tables/analysis-result';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.alerts, async ({ params, principal }) => {
  const result = await lastAnalysis(principal.tenantId, params.data_table_id, params.version_number);
  // Alerts come from a FULL profile only.
  if (result.depth !== 'FULL') throw new AppError('20-1062');
  return { body: { depth: result.depth, alerts: result.alerts } };
});
