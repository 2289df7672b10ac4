import { earlierCreate, createRecordWrite, replayedEntityId, type IdempotentRequest } from '../db/idempotent-create';
import { failedAt } from '../db/transactions';
import { AppError, validationError } from '../errors/app-error';
import { prepareClient } from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { PLATFORM_TENANT, tenantRegistry, throughUpstream, type TenantRecord } from './store';
import { sealSystemUserSecret } from './system-user';

export interface NewTenant {
  readonly tenant_id: string;
  readonly name: string;
  readonly description?: string | null | undefined;
}

/** A tenant just created, with its bootstrap admin's secret (shown once), or the one an Idempotency-Key replays, without. */
export type CreatedTenant =
  | { readonly tenant: TenantRecord; readonly adminSecret: string; readonly replayed: false }
  | { readonly tenant: TenantRecord; readonly adminSecret?: undefined; readonly replayed: true };

const taken = () => new AppError('10-409', { params: ['tenant', 'tenant_id'] });

/** Positions in the create's transaction: the registry's writes, then the identity provider's clients. */
const REGISTRY_WRITE = 0;
const IDEMPOTENCY_WRITE = 1;

/**
 * Registers the tenant and provisions its system user and its bootstrap admin client in one
 * transaction: the registry's record, both clients and the Idempotency-Key's record are all
 * written or none, so a failure half-way leaves no tenant and no client behind. A tenant id in
 * use is 10-409 (the registry's condition, whoever won a race); the platform's is 10-1400; a
 * client the identity provider cannot write is 30-7003. With an Idempotency-Key, a retry or a
 * concurrent twin answers the tenant the first create made, without the admin's secret.
 */
export function createTenant(
  request: NewTenant,
  createdBy: string,
  idempotency?: IdempotentRequest,
): Promise<CreatedTenant> {
  const tenantId = request.tenant_id;
  if (tenantId === PLATFORM_TENANT) throw validationError({ tenant_id: `${PLATFORM_TENANT} is reserved` });
  return throughUpstream(async () => {
    const earlier = idempotency && (await earlierCreate(PLATFORM_TENANT, 'TENANT', idempotency));
    if (earlier !== undefined) return replay(earlier);
    // Spares the slow hashes below when the id is plainly in use; the transaction's condition is what guarantees it.
    if (await tenantRegistry.find(tenantId)) {
      // A concurrent twin with the same key may have committed since the look above: its tenant, not 10-409.
      const committed = idempotency && (await earlierCreate(PLATFORM_TENANT, 'TENANT', idempotency));
      if (committed !== undefined) return replay(committed);
      throw taken();
    }
    const systemUser = await prepareClient({
      tenantId,
      roleNames: ['system-admin'],
      description: `system user of tenant ${tenantId}`,
    });
    const admin = await prepareClient({
      tenantId,
      roleNames: ['admin'],
      description: `bootstrap admin of tenant ${tenantId}`,
    });
    const tenant: TenantRecord = {
      tenant_id: tenantId,
      name: request.name,
      description: request.description ?? null,
      created_date: new Date().toISOString(),
      created_by: createdBy,
      system_user_client_id: systemUser.record.client_id,
      bootstrap_admin_client_id: admin.record.client_id,
      system_user_secret: await sealSystemUserSecret(tenantId, systemUser.record.client_id, systemUser.secret),
    };
    const registration = [
      tenantRegistry.createWrite(tenantId, tenant),
      ...(idempotency ? [createRecordWrite(PLATFORM_TENANT, 'TENANT', idempotency, tenantId)] : []),
    ];
    const outcome = await identityProvider().createClientsWith([systemUser.record, admin.record], registration);
    if (outcome.committed) return { tenant, adminSecret: admin.secret, replayed: false };
    const raced = idempotency && failedAt(outcome, IDEMPOTENCY_WRITE);
    if (idempotency && raced) return replay(replayedEntityId('TENANT', idempotency, raced.item));
    if (failedAt(outcome, REGISTRY_WRITE)) throw taken();
    throw new AppError('30-7003', { cause: new Error(`tenant ${tenantId}: a client's write was refused`) });
  });
}

/** The tenant an earlier create with the same Idempotency-Key made. */
async function replay(tenantId: string): Promise<CreatedTenant> {
  const tenant = await tenantRegistry.find(tenantId);
  if (!tenant) throw new AppError('50-1003', { extraDetails: { tenant_id: tenantId } });
  return { tenant, replayed: true };
}
