import type { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { authenticateClient } from '../identity/clients';
import { open, seal, type EncryptionContext, type SealedSecret } from '../secrets/envelope';

/**
 * The admin plane acting as a tenant's system user (docs/admin-plane.md): whatever it does
 * inside a tenant it does as that tenant's own client, authenticated at the identity provider
 * like any other, never with rights of its own there. The registry keeps the system user's
 * secret sealed (envelope encryption, bound to the tenant and the client), as connections
 * keep theirs; the identity provider keeps only its hash, as for every client.
 */

/** Binds a system user's sealed secret to its tenant and client. */
function secretContext(tenantId: string, clientId: string): EncryptionContext {
  return { tenant_id: tenantId, entity: 'system-user', entity_id: clientId };
}

/** The system user's secret as the registry keeps it. */
export function sealSystemUserSecret(tenantId: string, clientId: string, secret: string): Promise<SealedSecret> {
  return seal(secret, secretContext(tenantId, clientId));
}

/** What the registry knows of a tenant's system user. */
export interface SystemUserCredentials {
  readonly tenant_id: string;
  readonly system_user_client_id: string;
  readonly system_user_secret: SealedSecret;
}

/**
 * The principal of the tenant's system user, authenticated at the identity provider with the
 * secret the registry keeps; 50-1014 when its credentials no longer verify (its client was
 * deleted, has expired, or holds another secret's hash).
 */
export async function actAsSystemUser(tenant: SystemUserCredentials): Promise<Principal> {
  const clientId = tenant.system_user_client_id;
  const secret = await open(tenant.system_user_secret, secretContext(tenant.tenant_id, clientId));
  const principal = await authenticateClient(clientId, secret);
  if (!principal) throw new AppError('50-1014', { params: [tenant.tenant_id] });
  return principal;
}
