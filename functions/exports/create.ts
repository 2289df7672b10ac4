import { API_BASE_PATH } from '../../shared/config';
import { startTargetExport } from '../../shared/exports/target-export-start';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { exportRoutes } from './routes';

/** Starts an export to a target (shared/exports/target-export-start.ts); an Idempotency-Key makes retries safe. */
export const handler = httpHandler(exportRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { exportId, replayed } = await startTargetExport(
    principal,
    body,
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) },
  );
  return {
    status: 202,
    body: { export_id: exportId },
    headers: {
      location: `${API_BASE_PATH}/exports/${exportId}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
