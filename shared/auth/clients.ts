import { findClient, putClient } from './client-store';
import { digestSecret, newClientId, newClientSecret, secretMatches, tenantOfClientId } from './client-secrets';
import { permissionsOf, type RoleName } from './permissions';
import type { Principal } from './principal';

export interface NewClient {
  readonly tenantId: string;
  readonly roles: readonly RoleName[];
  readonly description?: string;
  readonly expiresAt?: Date;
}

export interface IssuedCredentials {
  readonly client_id: string;
  /** Shown once; only its digest is stored. */
  readonly client_secret: string;
}

export async function createClient(client: NewClient): Promise<IssuedCredentials> {
  const clientId = newClientId(client.tenantId);
  const secret = newClientSecret();
  await putClient({
    tenant_id: client.tenantId,
    client_id: clientId,
    secret: digestSecret(secret),
    roles: [...client.roles],
    description: client.description ?? null,
    created_date: new Date().toISOString(),
    expires_at: client.expiresAt?.toISOString() ?? null,
  });
  return { client_id: clientId, client_secret: secret };
}

/** The principal behind a client id and secret, or undefined when they do not authenticate. */
export async function authenticateClient(
  clientId: string,
  secret: string,
  now = new Date(),
): Promise<Principal | undefined> {
  const tenantId = tenantOfClientId(clientId);
  const record = tenantId ? await findClient(tenantId, clientId) : undefined;
  if (!record) {
    // Spend the same work as a real check, so timing does not reveal which client ids exist.
    secretMatches(secret, digestSecret('unknown-client'));
    return undefined;
  }
  if (!secretMatches(secret, record.secret)) return undefined;
  if (record.expires_at !== null && Date.parse(record.expires_at) <= now.getTime()) return undefined;
  return {
    tenantId: record.tenant_id,
    clientId: record.client_id,
    name: record.description,
    roles: [...record.roles],
    permissions: permissionsOf(record.roles),
  };
}
