import { partUrl } from '../../shared/connectors/presigned-parts';
import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { idempotentResponse } from '../../shared/db/idempotent-responses';
import type { MultiPartCredentials, StoredMultiPartExport } from '../../shared/exports/items';
import { multiPartExportJob } from '../../shared/exports/jobs';
import { checkedExport, idempotentStart, startInProgress } from '../../shared/exports/start';
import { beginExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { endpointSystems, launchReaching } from '../../shared/jobs/task-reach';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { ExportJobStarted } from '../../shared/model/export';
import { exportRoutes } from './routes';

/**
 * Starts a multi-part export: every part URL passes the outbound guard (10-1008, 30-1130),
 * the source and its columns are checked, and the job is created with the URLs sealed beside
 * it (a pre-signed URL is a bearer capability) and started.
 */
export const handler = httpHandler(exportRoutes.startMultiPart, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const launch = launchReaching(requestedLaunch(principal, body.launch), endpointSystems(body.parts_urls));
  const { body: started, replayed } = await idempotentResponse(
    tenantId,
    'MULTI_PART_EXPORT',
    ExportJobStarted,
    idempotentStart(idempotencyKey, body, []),
    startInProgress,
    async () => {
      await assertQuotaAllowsStart(tenantId);
      body.parts_urls.forEach((url, index) => partUrl(url, index));
      const { shape, source } = await checkedExport(tenantId, body);
      const credentials: MultiPartCredentials = { parts_urls: body.parts_urls };
      const fields: Pick<StoredMultiPartExport, 'shape' | 'parts'> = { shape, parts: body.parts_urls.length };
      const { ref } = await beginExportJob(tenantId, 'MULTI_PART_EXPORT', actorOf(principal), fields, credentials);
      await startJob(multiPartExportJob, ref, fields, jobLaunch(launch, source.bytes));
      return { job_id: ref.job_id };
    },
  );
  return {
    status: 202,
    body: started,
    headers: {
      location: `${API_BASE_PATH}/exports/multi-part/${started.job_id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
