import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { AppError } from '../../shared/errors/app-error';
import { requireFeature } from '../../shared/features/store';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { jobLaunch, requestedLaunch } from '../../shared/jobs/launch';
import { startJob } from '../../shared/jobs/start';
import { connectionSystems, launchReaching } from '../../shared/jobs/task-reach';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { renderDestination } from '../../shared/targets/destination';
import { targetForExport } from '../../shared/targets/store';
import { transferJob } from '../../shared/transfers/jobs';
import { mappedColumns } from '../../shared/transfers/pricing';
import { transferSourceOf } from '../../shared/transfers/source';
import { beginTransfer } from '../../shared/transfers/store';
import { transferRoutes } from './routes';

/**
 * Starts a transfer: the feature and the quota first (nothing is written when they refuse),
 * then the target (30-6002; a pricing target, 10-1042 for another kind; its connection still
 * writable, 30-5002), the source and its rules (shared/transfers/source.ts) and the type
 * mapping (30-4009). The transfer is created with its claim on the target and its destination
 * rendered ({export_id} is the transfer's id), then its job starts. The pricing system is
 * not called here: its limits are the job's first check, before any row is sent.
 */
export const handler = httpHandler(transferRoutes.start, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const launch = requestedLaunch(principal, body.launch);
  await requireFeature(tenantId, 'transfers');
  await assertQuotaAllowsStart(tenantId);
  const { target, connection } = await targetForExport(tenantId, body.target_id);
  if (target.data.type !== 'pricing') throw new AppError('10-1042');
  const mode = launchReaching(launch, connectionSystems(connection));
  const source = await transferSourceOf(tenantId, body);
  const columns = mappedColumns(source.columns, connection.data.type_mapping);
  const started = new Date();
  const { entity, ref, replayed } = await beginTransfer(
    tenantId,
    actorOf(principal),
    (transferId) => {
      const rendered = renderDestination(target.data, connection, {
        dataset_name: source.name,
        version: source.version,
        export_id: transferId,
        started,
      });
      return {
        target_id: target.id,
        target_name: target.data.name,
        connection_id: connection.id,
        connection_name: connection.data.name,
        source_type: body.source_type,
        source_id: body.source_id,
        source_version: source.version,
        source_name: source.name,
        project_path: rendered.project_path ?? '',
        table_path: rendered.table_path ?? '',
        columns,
        rows_total: source.rows,
      };
    },
    { id: target.id, lockVersion: target.lock_version },
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) },
  );
  await startJob(transferJob, ref, { transfer_id: entity.id }, jobLaunch(mode, source.bytes));
  return {
    status: 202,
    body: { transfer_id: entity.id },
    headers: {
      location: `${API_BASE_PATH}/transfers/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
