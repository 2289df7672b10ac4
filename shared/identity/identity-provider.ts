import type { ClientRecord } from '../auth/client-store';
import type { IdempotentRequest } from '../db/idempotent-create';
import type { TransactionOutcome, TransactItem } from '../db/transactions';
import type { Role } from './roles';

/** What a create at the identity provider gives back (an Idempotency-Key may replay an earlier one). */
export interface CreatedClient {
  readonly clientId: string;
  /** Undefined when the create an Idempotency-Key replays made a client deleted since. */
  readonly client: ClientRecord | undefined;
  readonly replayed: boolean;
}

/**
 * The identity provider: where a tenant's API clients and roles live. Its own failures are its
 * catalogue codes: creating a client 30-7003, deleting one 30-7004, reading roles 30-7005;
 * refusals it makes on purpose (an Idempotency-Key reused with another request) stay as they are.
 */
export interface IdentityProvider {
  /** The tenant's roles, the built-in ones as the code defines them included. */
  roles(tenantId: string): Promise<Role[]>;
  createClient(client: ClientRecord, idempotency?: IdempotentRequest): Promise<CreatedClient>;
  /**
   * Creates the clients in one transaction with `alongside`, writes of the platform's store
   * (the tenant registry): all are written or none. Not committed when any write's condition
   * fails; the outcome's reasons are in the order of `alongside`, then of `clients`. A provider
   * outside the service's table could not join the transaction; this one shares the table.
   */
  createClientsWith(clients: readonly ClientRecord[], alongside: readonly TransactItem[]): Promise<TransactionOutcome>;
  findClient(tenantId: string, clientId: string): Promise<ClientRecord | undefined>;
  listClients(tenantId: string): Promise<ClientRecord[]>;
  /** False when there was no such client. */
  deleteClient(tenantId: string, clientId: string): Promise<boolean>;
}
