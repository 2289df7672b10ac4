import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { AppError } from '../../shared/errors/app-error';
import { targetExportJob } from '../../shared/exports/jobs';
import { checkedExport } from '../../shared/exports/start';
import { beginTargetExport } from '../../shared/exports/target-exports';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { startJob } from '../../shared/jobs/start';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { targetForExport } from '../../shared/targets/store';
import { exportRoutes } from './routes';

/**
 * Starts an export to a target: the target must exist (30-6002), still be writable through
 * its connection (30-5002) and be of a kind exports write to (pricing targets receive
 * transfers, not exports: 10-1042); the source and its columns are checked as for every
 * export. The export is created with its claim on the target (30-6005 for the target's
 * edits until the job ends), then its job starts.
 */
export const handler = httpHandler(exportRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  await assertQuotaAllowsStart(tenantId);
  const { target, connection } = await targetForExport(tenantId, body.target_id);
  if (target.data.type === 'pricing') throw new AppError('10-1042');
  const { shape, source } = await checkedExport(tenantId, { ...body, validate_release: body.validate_to_release });
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
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) },
  );
  await startJob(targetExportJob, ref, { export_id: entity.id, shape: entity.data.shape });
  return {
    status: 202,
    body: { export_id: entity.id },
    headers: {
      location: `${API_BASE_PATH}/exports/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
