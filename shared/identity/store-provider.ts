import { clientStore, type ClientRecord } from '../auth/client-store';
import type { IdempotentRequest } from '../db/idempotent-create';
import { RecordStore } from '../db/record-store';
import { transactWrite, type TransactionOutcome, type TransactItem } from '../db/transactions';
import { AppError, isAppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/catalogue';
import type { CreatedClient, IdentityProvider } from './identity-provider';
import { builtInRoles, Role } from './roles';

/** The roles store (keys.record under ROLE). */
export const roleStore = new RecordStore({ kind: 'ROLE', schema: Role, idOf: (role) => role.role_id });

const sameRole = (a: Role, b: Role) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The identity provider kept in the service's own table: clients (keys.client) and roles
 * (keys.record under ROLE). Built-in roles are read as the code defines them, whatever is
 * stored; creating a client writes them into the tenant's roles where they are missing or old,
 * so the store holds every role a client names.
 */
export class StoreIdentityProvider implements IdentityProvider {
  roles(tenantId: string): Promise<Role[]> {
    return failsAs('30-7005', async () => {
      const seeded = builtInRoles();
      const seededIds = new Set(seeded.map((role) => role.role_id));
      const stored = await roleStore.list(tenantId);
      return [...seeded, ...stored.filter((role) => !seededIds.has(role.role_id))];
    });
  }

  createClient(client: ClientRecord, idempotency?: IdempotentRequest): Promise<CreatedClient> {
    return failsAs('30-7003', async () => {
      await seedRoles(client.tenant_id);
      const { id, record, replayed } = await clientStore.create(client.tenant_id, client, idempotency);
      return { clientId: id, client: record, replayed };
    });
  }

  createClientsWith(clients: readonly ClientRecord[], alongside: readonly TransactItem[]): Promise<TransactionOutcome> {
    return failsAs('30-7003', async () => {
      // The seeds are the code's roles, the same in every tenant: writing them first leaves nothing half made.
      for (const tenantId of new Set(clients.map((client) => client.tenant_id))) await seedRoles(tenantId);
      return transactWrite([
        ...alongside,
        ...clients.map((client) => clientStore.createWrite(client.tenant_id, client)),
      ]);
    });
  }

  findClient(tenantId: string, clientId: string): Promise<ClientRecord | undefined> {
    return clientStore.find(tenantId, clientId);
  }

  listClients(tenantId: string): Promise<ClientRecord[]> {
    return clientStore.list(tenantId);
  }

  deleteClient(tenantId: string, clientId: string): Promise<boolean> {
    return failsAs('30-7004', () => clientStore.delete(tenantId, clientId));
  }
}

/** Writes the built-in roles into the tenant's roles where they are missing or old, so the store holds every role a client names. */
async function seedRoles(tenantId: string): Promise<void> {
  const stored = await roleStore.list(tenantId);
  const stale = builtInRoles().filter((role) => !stored.some((known) => sameRole(known, role)));
  await Promise.all(stale.map((role) => roleStore.put(tenantId, role)));
}

/** Runs `work`; a failure of the store becomes the provider's `code` (refusals made on purpose pass unchanged). */
async function failsAs<T>(code: ErrorCode, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.status < 500) throw error;
    throw new AppError(code, { cause: error });
  }
}
