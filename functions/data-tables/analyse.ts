import { analysisStatus } from '../../shared/data-tables/response';
import { schemaAnalysisJob } from '../../shared/data-tables/jobs';
import { analyses, dataVersions } from '../../shared/data-tables/versions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { dataTableRoutes } from './routes';

export const handler = httpHandler(dataTableRoutes.analyse, async ({ params, body, principal }) => {
  const { tenantId } = principal;
  const { data_table_id: tableId, version_number: versionNumber } = params;
  // FULL analysis is its own permission, "Analyze recipe schema" (spec 5.2).
  if (body.depth === 'FULL' && !principal.permissions.includes('schema:analyze')) {
    throw new AppError('10-403', { extraDetails: { required_permission: 'schema:analyze' } });
  }
  const launch = requestedLaunch(principal, body.launch);
  await assertQuotaAllowsStart(tenantId);
  const job = await analyses.begin(tenantId, tableId, versionNumber, body.depth);
  // The analysis reads the version's Parquet: its stored bytes choose where it runs.
  const { metadata } = await dataVersions.get(tenantId, tableId, versionNumber);
  await startJob(
    schemaAnalysisJob,
    job,
    { data_table_id: tableId, version_number: versionNumber, depth: body.depth },
    jobLaunch(launch, metadata?.data_bytes ?? 0),
  );
  const status = analysisStatus(await dataVersions.get(tenantId, tableId, versionNumber));
  return { status: 202, body: status! };
});
