import { importJobRef, dataVersions } from '../../shared/data-tables/versions';
import { importJob } from '../../shared/data-tables/jobs';
import { versionView } from '../../shared/data-tables/views';
import { httpHandler } from '../../shared/http/handler';
import { cancelJob } from '../../shared/jobs/cancel';
import { dataTableCancelRoutes } from './cancel-routes';

/** Cancels a version's import (shared/jobs/cancel.ts) and answers the version as GET does. */
export const handler = httpHandler(dataTableCancelRoutes.cancelImport, async ({ params, principal }) => {
  const { tenantId } = principal;
  const { data_table_id: tableId, version_number: versionNumber } = params;
  await cancelJob(importJob, async () => {
    const { execution } = await dataVersions.get(tenantId, tableId, versionNumber);
    return { ref: importJobRef(tenantId, tableId, versionNumber, execution.job_id), execution };
  });
  return { body: await versionView(tenantId, tableId, versionNumber) };
});
