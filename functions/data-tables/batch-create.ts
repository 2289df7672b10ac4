import { API_BASE_PATH } from '../../shared/config';
import { idempotentResponse } from '../../shared/db/idempotent-responses';
import { fingerprint } from '../../shared/http/fingerprint';
import { actorOf, type Actor } from '../../shared/db/actor';
import { batchItemError } from '../../shared/errors/problem';
import { versionResponse } from '../../shared/data-tables/response';
import { importJob } from '../../shared/data-tables/jobs';
import { dataTableStore } from '../../shared/data-tables/store';
import { creationInProgress, dataVersions } from '../../shared/data-tables/versions';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { connectionSystems, launchReaching } from '../../shared/jobs/task-reach';
import { connectionStore } from '../../shared/connections/store';
import { dataSourceStore } from '../../shared/data-sources/store';
import type { LaunchMode } from '../../shared/model/job';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { httpHandler } from '../../shared/http/handler';
import type { RetentionPolicyRule } from '../../shared/model/retention';
import { refuseWhileExpiredFailureWaits } from '../../shared/retention/import-guard';
import { activeRule } from '../../shared/retention-policy/policy';
import { dataTableRoutes } from './routes';

/**
 * The bytes the table's source held when it was last read (its newest completed version's
 * bytes_read): what the import's state machine weighs to choose Lambda or Fargate; 0 before a
 * first import.
 */
async function lastBytesRead(tenantId: string, dataTableId: number): Promise<number> {
  return (await dataVersions.newestCompleted(tenantId, dataTableId))?.metadata?.bytes_read ?? 0;
}

/** Starts the import of one table: its new version and job, or that table's refusal. */
async function startImport(
  tenantId: string,
  actor: Actor,
  dataTableId: number,
  rule: RetentionPolicyRule | undefined,
  launch: LaunchMode,
) {
  try {
    const table = await dataTableStore.get(tenantId, dataTableId);
    const source = await dataSourceStore.get(tenantId, table.data.data_source_id);
    const mode = launchReaching(
      launch,
      connectionSystems(await connectionStore.get(tenantId, source.data.connection_id)),
    );
    await refuseWhileExpiredFailureWaits(tenantId, dataTableId, rule);
    const bytesRead = await lastBytesRead(tenantId, dataTableId);
    const { version, job } = await dataVersions.begin(tenantId, actor, dataTableId);
    await startJob(
      importJob,
      job,
      {
        data_table_id: dataTableId,
        version_number: version.version_number,
        data_source_id: table.data.data_source_id,
      },
      jobLaunch(mode, bytesRead),
    );
    const current = (await dataVersions.find(tenantId, dataTableId, version.version_number)) ?? version;
    return {
      data_table_id: dataTableId,
      status: 'ACCEPTED' as const,
      data_version: versionResponse(current),
      job: {
        job_id: job.job_id,
        status_url: `${API_BASE_PATH}/data-tables/${dataTableId}/versions/${version.version_number}`,
      },
    };
  } catch (error) {
    return { data_table_id: dataTableId, status: 'REJECTED' as const, error: batchItemError(error) };
  }
}

/**
 * Starts one import per table. Each table succeeds or fails on its own: an unknown table or
 * one whose previous import still runs (20-1029), or that holds an expired FAILED version the
 * retention sweep has yet to delete (20-1061), is refused in its result, the others start.
 * With an Idempotency-Key, a retry gets the first answer instead of a second set of imports.
 */
export const handler = httpHandler(dataTableRoutes.batchCreate, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const actor = actorOf(principal);
  const launch = requestedLaunch(principal, body.launch);
  const { body: response, replayed } = await idempotentResponse(
    tenantId,
    'DATA_VERSION_BATCH_CREATE',
    dataTableRoutes.batchCreate.response.body,
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) },
    creationInProgress,
    async () => {
      await assertQuotaAllowsStart(tenantId);
      const rule = await activeRule(tenantId);
      const starts = body.data_table_ids.map((dataTableId) => startImport(tenantId, actor, dataTableId, rule, launch));
      return { results: await Promise.all(starts) };
    },
  );
  const headers: Record<string, string> = replayed ? { 'idempotent-replayed': 'true' } : {};
  return { body: response, headers };
});
