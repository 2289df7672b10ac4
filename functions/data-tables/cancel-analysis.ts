import { schemaAnalysisJob } from '../../shared/data-tables/jobs';
import { analysisStatus } from '../../shared/data-tables/response';
import { analysisJobRef, dataVersions } from '../../shared/data-tables/versions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { dataTableCancelRoutes } from './cancel-routes';

/** Cancels a version's schema analysis (shared/jobs/cancel.ts) and answers its status as GET does. */
export const handler = httpHandler(dataTableCancelRoutes.cancelAnalysis, async ({ params, principal }) => {
  const { tenantId } = principal;
  const { data_table_id: tableId, version_number: versionNumber } = params;
  const none = () => new AppError('20-1025', { params: [tableId, versionNumber] });
  await cancelJob(schemaAnalysisJob, async () => {
    const { analysis_execution: execution } = await dataVersions.get(tenantId, tableId, versionNumber);
    if (!execution) throw none();
    return { ref: analysisJobRef(tenantId, tableId, versionNumber, execution.job_id), execution };
  });
  const status = analysisStatus(await dataVersions.get(tenantId, tableId, versionNumber));
  if (!status) throw none();
  return { body: status };
});
