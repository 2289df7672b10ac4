import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import type { IdempotentRequest } from '../db/idempotent-create';
import { AppError } from '../errors/app-error';
import { jobLaunch, requestedLaunch } from '../jobs/launch';
import { startJob } from '../jobs/start';
import { connectionSystems, launchReaching } from '../jobs/task-reach';
import type { CreateExportRequest } from '../model/export';
import { assertQuotaAllowsStart } from '../quota/enforcement';
import { targetForExport } from '../targets/store';
import { targetExportJob } from './jobs';
import { checkedExport } from './start';
import { beginTargetExport } from './target-exports';

/**
 * Starts an export to a target for the caller: the target must exist (30-6002), still be
 * writable through its connection (30-5002) and be of a kind exports write to (pricing
 * targets receive transfers, not exports: 10-1042); the source and its columns are checked as
 * for every export. The export is created with its claim on the target (30-6005 for the
 * target's edits until the job ends), then its job starts. Shared by POST /exports and the
 * apps' `start_export` action.
 */
export async function startTargetExport(
  principal: Principal,
  request: CreateExportRequest,
  idempotency: IdempotentRequest | undefined,
): Promise<{ readonly exportId: number; readonly replayed: boolean }> {
  const { tenantId } = principal;
  const launch = requestedLaunch(principal, request.launch);
  await assertQuotaAllowsStart(tenantId);
  const { target, connection } = await targetForExport(tenantId, request.target_id);
  if (target.data.type === 'pricing') throw new AppError('10-1042');
  const mode = launchReaching(launch, connectionSystems(connection));
  const { shape, source } = await checkedExport(tenantId, {
    ...request,
    validate_release: request.validate_to_release,
  });
  const { entity, ref, replayed } = await beginTargetExport(
    tenantId,
    actorOf(principal),
    {
      target_id: target.id,
      target_name: target.data.name,
      connection_id: connection.id,
      connection_name: connection.data.name,
      source_name: source.name,
      shape,
    },
    target.lock_version,
    idempotency,
  );
  await startJob(
    targetExportJob,
    ref,
    { export_id: entity.id, shape: entity.data.shape },
    jobLaunch(mode, source.bytes),
  );
  return { exportId: entity.id, replayed };
}
