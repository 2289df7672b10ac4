import { dataVersions } from '../data-tables/versions';
import { AppError } from '../errors/app-error';
import { config } from '../config';
import { executionView } from '../jobs/view';
import type { RetentionPolicyRule } from '../model/retention';
import { retentionNow } from './clock';
import { dataVersionExpiration, hasExpired, newestCompletedOf } from '../retention-policy/expiry';

/**
 * Refuses an import into a table that holds a FAILED version which has expired and which the
 * sweep has not deleted yet (spec 3.10, 20-1061): that version belongs to the policy now, and
 * the next sweep deletes it; the import can start after it.
 */
export async function refuseWhileExpiredFailureWaits(
  tenantId: string,
  dataTableId: number,
  rule: RetentionPolicyRule | undefined,
): Promise<void> {
  if (!rule) return;
  const versions = await dataVersions.list(tenantId, dataTableId);
  const kept = newestCompletedOf(versions);
  const now = retentionNow();
  const waiting = versions.some(
    (version) =>
      executionView(version.execution, Date.now(), config.jobInactivitySeconds).status === 'FAILED' &&
      hasExpired(dataVersionExpiration(version, rule, kept), now),
  );
  if (waiting) throw new AppError('20-1061');
}
