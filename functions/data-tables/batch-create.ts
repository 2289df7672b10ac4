import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/connections/store';
import { batchItemError } from '../../shared/data-tables/batch';
import { versionResponse } from '../../shared/data-tables/response';
import { dataTableStore } from '../../shared/data-tables/store';
import { dataVersions } from '../../shared/data-tables/versions';
import { startJob } from '../../shared/jobs/start';
import { httpHandler } from '../../shared/http/handler';
import type { ImportParams } from '../../shared/data-tables/job-params';
import { dataTableRoutes } from './routes';

/**
 * Starts one import per table. Each table succeeds or fails on its own: an unknown table or
 * one whose previous import still runs (20-1029) is refused in its result, the others start.
 */
export const handler = httpHandler(dataTableRoutes.batchCreate, async ({ body, principal }) => {
  const { tenantId } = principal;
  const actor = actorOf(principal);
  const results = await Promise.all(
    body.data_table_ids.map(async (dataTableId) => {
      try {
        const table = await dataTableStore.get(tenantId, dataTableId);
        const { version, job } = await dataVersions.begin(tenantId, actor, dataTableId);
        const params: ImportParams = { data_table_id: dataTableId, version_number: version.version_number, data_source_id: table.data.data_source_id };
        await startJob(job, params);
        const current = (await dataVersions.find(tenantId, dataTableId, version.version_number)) ?? version;
        return {
          data_table_id: dataTableId,
          status: 'ACCEPTED' as const,
          data_version: versionResponse(current),
          job: { job_id: job.job_id, status_url: `${API_BASE_PATH}/data-tables/${dataTableId}/versions/${version.version_number}` },
        };
      } catch (error) {
        return { data_table_id: dataTableId, status: 'REJECTED' as const, error: batchItemError(error) };
      }
    }),
  );
  return { body: { results } };
});
