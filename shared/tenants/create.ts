import { earlierCreate, createRecordWrite, replayedEntityId, type IdempotentRequest } from '../db/idempotent-create';
import { failedAt } from '../db/transactions';
import { AppError, validationError } from '../errors/app-error';
import {
  createCredentials,
  prepareClient,
  type IssuedCredentials,
  type NewClient,
  type PreparedClient,
} from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { PLATFORM_TENANT, tenantRegistry, throughUpstream, type TenantRecord } from './store';
import { sealSystemUserSecret } from './system-user';

/**
 * The one tenant-creation path (docs/admin-plane.md): POST /admin/tenants, `npm run
 * create-client`, the local twin's bootstrap and the test harness all make tenants here, so
 * every tenant that has clients is in the registry, with its system user.
 */

export interface NewTenant {
  readonly tenant_id: string;
  readonly name: string;
  readonly description?: string | null | undefined;
}

/** A tenant just created, with its bootstrap admin's secret (shown once), or the one an Idempotency-Key replays, without. */
export type CreatedTenant =
  | {
      readonly tenant: TenantRecord;
      readonly adminClientId: string;
      readonly adminSecret: string;
      readonly replayed: false;
    }
  | {
      readonly tenant: TenantRecord;
      readonly adminClientId: string;
      readonly adminSecret?: undefined;
      readonly replayed: true;
    };

/** A client an operator asks for (create-client, the twin's bootstrap): no creator bounds it, no Idempotency-Key replays it. */
export type OperatorClient = Omit<NewClient, 'creator' | 'idempotency'>;

const taken = () => new AppError('10-409', { params: ['tenant', 'tenant_id'] });

/** Positions in the create's transaction: the registry's writes, then the identity provider's clients. */
const REGISTRY_WRITE = 0;
const IDEMPOTENCY_WRITE = 1;

/**
 * Registers the tenant and provisions its system user and, when given, its first client, in
 * one transaction: the registry's record, the clients and the Idempotency-Key's record are all
 * written or none, so a failure half-way leaves no tenant and no client behind. 'taken' when
 * the registry already has the id (whoever won a race), 'replayed' with the tenant id when a
 * concurrent create with the same Idempotency-Key committed first; 30-7003 when a client's
 * write is refused.
 */
async function writeTenant(
  request: NewTenant,
  createdBy: string,
  first: PreparedClient | undefined,
  idempotency?: IdempotentRequest,
): Promise<TenantRecord | 'taken' | { readonly replayedId: string }> {
  const tenantId = request.tenant_id;
  const systemUser = await prepareClient({
    tenantId,
    roleNames: ['system-admin'],
    description: `system user of tenant ${tenantId}`,
  });
  const tenant: TenantRecord = {
    tenant_id: tenantId,
    name: request.name,
    description: request.description ?? null,
    created_date: new Date().toISOString(),
    created_by: createdBy,
    system_user_client_id: systemUser.record.client_id,
    bootstrap_admin_client_id: first?.record.client_id ?? null,
    system_user_secret: await sealSystemUserSecret(tenantId, systemUser.record.client_id, systemUser.secret),
  };
  const registration = [
    tenantRegistry.createWrite(tenantId, tenant),
    ...(idempotency ? [createRecordWrite(PLATFORM_TENANT, 'TENANT', idempotency, tenantId)] : []),
  ];
  const clients = first ? [systemUser.record, first.record] : [systemUser.record];
  const outcome = await identityProvider().createClientsWith(clients, registration);
  if (outcome.committed) return tenant;
  const raced = idempotency && failedAt(outcome, IDEMPOTENCY_WRITE);
  if (idempotency && raced) return { replayedId: replayedEntityId('TENANT', idempotency, raced.item) };
  if (failedAt(outcome, REGISTRY_WRITE)) return 'taken';
  throw new AppError('30-7003', { cause: new Error(`tenant ${tenantId}: a client's write was refused`) });
}

/**
 * POST /admin/tenants: the tenant with its system user and its bootstrap admin (role admin).
 * A tenant id in use is 10-409 (the registry's condition, whoever won a race); the platform's
 * is 10-1400. With an Idempotency-Key, a retry or a concurrent twin answers the tenant the
 * first create made, without the admin's secret.
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
    const admin = await prepareClient({
      tenantId,
      roleNames: ['admin'],
      description: `bootstrap admin of tenant ${tenantId}`,
    });
    const written = await writeTenant(request, createdBy, admin, idempotency);
    if (written === 'taken') throw taken();
    if ('replayedId' in written) return replay(written.replayedId);
    return { tenant: written, adminClientId: admin.record.client_id, adminSecret: admin.secret, replayed: false };
  });
}

/** The tenant an earlier create with the same Idempotency-Key made (always with its bootstrap admin). */
async function replay(tenantId: string): Promise<CreatedTenant> {
  const tenant = await tenantRegistry.find(tenantId);
  if (!tenant) throw new AppError('50-1003', { extraDetails: { tenant_id: tenantId } });
  const adminClientId = tenant.bootstrap_admin_client_id;
  if (adminClientId === null) throw new Error(`tenant ${tenantId} was not made by POST /admin/tenants`);
  return { tenant, adminClientId, replayed: true };
}

/**
 * A client for an operator (`npm run create-client`, the twin's bootstrap, the test harness):
 * in a tenant the registry has, a client like any other; in a new one, the tenant is created
 * with it as its first client (named after its id, `createdBy` as its creator). Of concurrent
 * calls for one new tenant, one creates it and the others add their client to it. The
 * platform's own tenant holds no data and is never registered.
 */
export async function issueOperatorClient(
  request: OperatorClient,
  createdBy: string,
): Promise<IssuedCredentials & { readonly tenant_created: boolean }> {
  const { tenantId } = request;
  if (tenantId !== PLATFORM_TENANT && !(await throughUpstream(() => tenantRegistry.find(tenantId)))) {
    const first = await prepareClient(request);
    const written = await throughUpstream(() => writeTenant({ tenant_id: tenantId, name: tenantId }, createdBy, first));
    // 'taken': a concurrent call created it first; this client joins that tenant below.
    if (written !== 'taken' && !('replayedId' in written))
      return { client_id: first.record.client_id, client_secret: first.secret, tenant_created: true };
  }
  return { ...(await createCredentials(request)), tenant_created: false };
}

/**
 * Registers a tenant that has clients but no registry record (made before every tenant came
 * through here): its record and a system user, no other client. Idempotent, and safe to run
 * concurrently: the registry's condition lets one registration in, and the system user is
 * written in the same transaction, so a loser leaves nothing behind. The tenant's record.
 */
export function registerTenant(tenantId: string, createdBy: string): Promise<TenantRecord> {
  if (tenantId === PLATFORM_TENANT) throw validationError({ tenant_id: `${PLATFORM_TENANT} is reserved` });
  return throughUpstream(async () => {
    const known = await tenantRegistry.find(tenantId);
    if (known) return known;
    const written = await writeTenant(
      {
        tenant_id: tenantId,
        name: tenantId,
        description: 'Registered after its clients were made: it had no registry record',
      },
      createdBy,
      undefined,
    );
    if (written !== 'taken' && !('replayedId' in written)) return written;
    const winner = await tenantRegistry.find(tenantId);
    if (!winner) throw new Error(`tenant ${tenantId}: its registration was refused, yet the registry lacks it`);
    return winner;
  });
}
