import { AppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import { findActiveContract } from './store';
import { measuredUsage, usedUp } from './usage';

/**
 * Refuses to start a job while the active contract's data (20-1042) or CPU (20-1043) is used
 * up, unless the contract allows overage. Called by every route that starts a job, before it
 * writes anything, so a refused start leaves nothing behind. Only while the tenant's
 * `quota_enforcement` toggle is on; a tenant without a current contract has no limit. Usage
 * lands when jobs end, so starts racing at the edge can overshoot by what the jobs running
 * then use (docs/quota.md, "Enforcement").
 */
export async function assertQuotaAllowsStart(tenantId: string): Promise<void> {
  if (!(await isFeatureOn(tenantId, 'quota_enforcement'))) return;
  const contract = await findActiveContract(tenantId);
  if (!contract || contract.data.overage_allowed) return;
  const exhausted = usedUp(contract, await measuredUsage(tenantId, contract));
  if (exhausted.data) throw new AppError('20-1042', { extraDetails: { contract_id: contract.id } });
  if (exhausted.cpu) throw new AppError('20-1043', { extraDetails: { contract_id: contract.id } });
}
