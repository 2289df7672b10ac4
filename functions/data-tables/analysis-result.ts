import { lastAnalysis } from '../../shared/data-tables/analysis-result';
import { httpHandler } from '../../shared/http/handler';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.analysisResult, async ({ params, principal }) => ({
  body: await lastAnalysis(principal.tenantId, params.data_table_id, params.version_number),
}));
