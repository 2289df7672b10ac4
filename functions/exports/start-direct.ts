import { serviceUrl } from '../../shared/connectors/endpoint';
import { S3_BUCKETS } from '../../shared/connectors/bucket-location';
import { checkObjectStoreDestination } from '../../shared/connectors/object-store/write';
import { observeConnector } from '../../shared/connectors/observed';
import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { idempotentResponse } from '../../shared/db/idempotent-responses';
import type { DirectExportCredentials, StoredDirectExport } from '../../shared/exports/items';
import { directExportJob } from '../../shared/exports/jobs';
import { checkedExport, idempotentStart, startInProgress } from '../../shared/exports/start';
import { beginExportJob } from '../../shared/exports/store';
import { httpHandler } from '../../shared/http/handler';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { endpointSystems, launchReaching } from '../../shared/jobs/task-reach';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { ExportJobStarted } from '../../shared/model/export';
import { exportRoutes } from './routes';

/** Secrets of the request: sealed with the job, and left out of the Idempotency-Key's digest. */
const SECRET_FIELDS = ['secret_key', 'session_token'];

/**
 * Starts a direct export: the endpoint passes the outbound guard, the source and its columns
 * are checked, the credentials sign one listing of the bucket, and only then is the job
 * created (credentials sealed beside it) and started.
 */
export const handler = httpHandler(exportRoutes.startDirect, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const launch = launchReaching(requestedLaunch(principal, body.launch), endpointSystems([body.endpoint]));
  const { body: started, replayed } = await idempotentResponse(
    tenantId,
    'DIRECT_EXPORT',
    ExportJobStarted,
    idempotentStart(idempotencyKey, body, SECRET_FIELDS),
    startInProgress,
    async () => {
      await assertQuotaAllowsStart(tenantId);
      serviceUrl(body.endpoint, 'endpoint');
      if (!S3_BUCKETS.isValidBucketName(body.bucket)) throw S3_BUCKETS.invalidBucket(body.bucket, body.bucket);
      const { shape, source } = await checkedExport(tenantId, body);
      const credentials: DirectExportCredentials = {
        endpoint: body.endpoint,
        access_key: body.access_key,
        secret_key: body.secret_key,
        ...(body.session_token ? { session_token: body.session_token } : {}),
      };
      await observeConnector('object_store', 'check', () =>
        checkObjectStoreDestination(
          {
            endpoint: body.endpoint,
            bucket: body.bucket,
            accessKeyId: body.access_key,
            secretAccessKey: body.secret_key,
            ...(body.session_token ? { sessionToken: body.session_token } : {}),
          },
          body.key,
        ),
      );
      const fields: Pick<StoredDirectExport, 'shape' | 'bucket' | 'key' | 'total_files'> = {
        shape,
        bucket: body.bucket,
        key: body.key,
        total_files: body.total_files,
      };
      const { ref } = await beginExportJob(tenantId, 'DIRECT_EXPORT', actorOf(principal), fields, credentials);
      await startJob(directExportJob, ref, fields, jobLaunch(launch, source.bytes));
      return { job_id: ref.job_id };
    },
  );
  return {
    status: 202,
    body: started,
    headers: {
      location: `${API_BASE_PATH}/exports/direct/${started.job_id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
