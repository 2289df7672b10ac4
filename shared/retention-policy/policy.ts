import * as z from 'zod';
import type { Actor } from '../db/actor';
import { is } from '../db/expressions';
import { StoredActor } from '../db/items';
import { PlatformRecords } from '../db/platform-records';
import { AppError, versionConflict } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import { RetentionPolicyRule, type RetentionPolicyResponse } from '../model/retention';

/**
 * Each tenant's retention policy (spec 2.10), one platform record per tenant keyed by its id,
 * so that the sweep walks the tenants that have one without reading every tenant's data.
 * Writes are conditional on lock_version (10-1006); 0 stands for "never set".
 */
const StoredPolicy = z.object({
  tenant_id: z.string(),
  enabled: z.boolean(),
  rule: RetentionPolicyRule.nullable(),
  lock_version: z.int(),
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_by: StoredActor,
  last_modified_date: z.string(),
});
export type StoredPolicy = z.infer<typeof StoredPolicy>;

const policies = new PlatformRecords('RETENTION_POLICY', StoredPolicy);

export function findPolicy(tenantId: string): Promise<StoredPolicy | undefined> {
  return policies.find(tenantId);
}

export function policyResponse(policy: StoredPolicy | undefined): RetentionPolicyResponse {
  if (!policy)
    return {
      enabled: false,
      rule: null,
      lock_version: 0,
      created_by: null,
      created_date: null,
      last_modified_by: null,
      last_modified_date: null,
    };
  const { tenant_id: _tenant, ...shown } = policy;
  return shown;
}

/** Sets the policy if lock_version is the stored one (10-1006 if not); enabled needs a rule (20-1060). */
export async function setPolicy(
  tenantId: string,
  actor: Actor,
  request: { enabled: boolean; rule?: RetentionPolicyRule | null; lock_version: number },
): Promise<StoredPolicy> {
  const rule = request.rule ?? null;
  if (request.enabled && rule === null) throw new AppError('20-1060');
  const current = await policies.find(tenantId);
  const now = new Date().toISOString();
  const next: StoredPolicy = {
    tenant_id: tenantId,
    enabled: request.enabled,
    rule,
    lock_version: request.lock_version + 1,
    created_by: current?.created_by ?? actor,
    created_date: current?.created_date ?? now,
    last_modified_by: actor,
    last_modified_date: now,
  };
  const when = request.lock_version === 0 ? is.absent('pk') : is.equal('lock_version', request.lock_version);
  if (!(await policies.putIf(tenantId, next, when))) throw versionConflict();
  return next;
}

/** The rule that expires the tenant's versions: only while the feature is on and the policy enabled. */
export async function activeRule(tenantId: string): Promise<RetentionPolicyRule | undefined> {
  if (!(await isFeatureOn(tenantId, 'retention'))) return undefined;
  return ruleOf(await policies.find(tenantId));
}

export function ruleOf(policy: StoredPolicy | undefined): RetentionPolicyRule | undefined {
  return policy?.enabled ? (policy.rule ?? undefined) : undefined;
}

/** A bounded page of policies after tenant `after`, in tenant order: the sweep's walk. */
export function policyPage(after: string | undefined, limit: number): Promise<StoredPolicy[]> {
  return policies.page(after, limit);
}
