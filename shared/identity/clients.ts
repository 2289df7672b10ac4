import { digestSecret, newClientId, newClientSecret, secretMatches, tenantOfClientId } from '../auth/client-secrets';
import type { ClientRecord } from '../auth/client-store';
import type { Principal } from '../auth/principal';
import type { IdempotentRequest } from '../db/idempotent-create';
import { AppError, notFound } from '../errors/app-error';
import { identityProvider } from './provider';
import { builtInRoleId, permissionsOfRoles, resolveRoleNames } from './roles';

/**
 * API clients of a tenant (tenant tokens), through the identity provider: the one code path of
 * POST /tokens, `npm run create-client` and the twin's bootstrap admin.
 */
export interface NewClient {
  readonly tenantId: string;
  /** Each must name exactly one of the tenant's roles (30-7001, 30-7002). */
  readonly roleNames: readonly string[];
  readonly description?: string | null;
  readonly expiresAt?: Date | null;
  /** Who asks, when a client asks: the new client may carry none of the permissions its creator lacks (10-403). */
  readonly creator?: Principal;
  readonly idempotency?: IdempotentRequest;
}

/** A new client with its secret (shown once: only its hash is stored), or the one an Idempotency-Key replays, without. */
export type IssuedClient =
  | { readonly client: ClientRecord; readonly secret: string; readonly replayed: false }
  | { readonly client: ClientRecord; readonly secret?: undefined; readonly replayed: true };

/** Credentials as an operator receives them (the create-client script, the twin's bootstrap admin). */
export interface IssuedCredentials {
  readonly client_id: string;
  readonly client_secret: string;
}

/** Entity name of a tenant token in 10-404 messages. */
export const TOKEN_LABEL = 'token';

/** A client not yet created, with its secret: what a create writes (only the secret's hash) and what it shows once. */
export interface PreparedClient {
  readonly record: ClientRecord;
  readonly secret: string;
}

/** The client a request describes, its roles resolved at the identity provider and its secret hashed; nothing is written. */
export async function prepareClient(request: Omit<NewClient, 'idempotency'>): Promise<PreparedClient> {
  const roles = resolveRoleNames(await identityProvider().roles(request.tenantId), request.roleNames);
  if (request.creator) {
    const held = new Set<string>(request.creator.permissions);
    const missing = permissionsOfRoles(roles).filter((permission) => !held.has(permission));
    if (missing.length > 0) throw new AppError('10-403', { extraDetails: { missing_permissions: missing } });
  }
  const secret = newClientSecret();
  const record: ClientRecord = {
    tenant_id: request.tenantId,
    client_id: newClientId(request.tenantId),
    secret: await digestSecret(secret),
    roles: roles.map((role) => role.name),
    role_ids: roles.map((role) => role.role_id),
    description: request.description ?? null,
    created_date: new Date().toISOString(),
    expires_at: request.expiresAt?.toISOString() ?? null,
  };
  return { record, secret };
}

export async function createClient(request: NewClient): Promise<IssuedClient> {
  const { record, secret } = await prepareClient(request);
  const created = await identityProvider().createClient(record, request.idempotency);
  if (!created.replayed) return { client: record, secret, replayed: false };
  if (!created.client) throw notFound(TOKEN_LABEL, created.clientId);
  return { client: created.client, replayed: true };
}

/** A client made for an operator: no creator and no Idempotency-Key, so always a new one with its secret. */
export async function createCredentials(
  request: Omit<NewClient, 'creator' | 'idempotency'>,
): Promise<IssuedCredentials> {
  const issued = await createClient(request);
  if (issued.replayed) throw new Error('a create without Idempotency-Key cannot replay');
  return { client_id: issued.client.client_id, client_secret: issued.secret };
}

/** The ids of a client's roles; clients made before roles were data name built-in roles only. */
export function roleIdsOf(client: ClientRecord): readonly string[] {
  return client.role_ids ?? client.roles.map(builtInRoleId);
}

/** A client past its expiry authenticates no more, and its tokens stop working (revocation.ts). */
function isExpired(client: ClientRecord, now = Date.now()): boolean {
  return client.expires_at !== null && Date.parse(client.expires_at) <= now;
}

/** A digest of nothing anyone holds: an unknown client id costs the same hash as a known one. */
const UNKNOWN_CLIENT = digestSecret(newClientSecret());

/** The principal behind a client id and secret, or undefined when they do not authenticate. */
export async function authenticateClient(
  clientId: string,
  secret: string,
  now = new Date(),
): Promise<Principal | undefined> {
  const provider = identityProvider();
  const tenantId = tenantOfClientId(clientId);
  const client = tenantId ? await provider.findClient(tenantId, clientId) : undefined;
  if (!client) {
    await secretMatches(secret, await UNKNOWN_CLIENT);
    return undefined;
  }
  if (!(await secretMatches(secret, client.secret)) || isExpired(client, now.getTime())) return undefined;
  return principalOfClient(client);
}

/** The principal a client acts as: its roles as the identity provider holds them now, and their permissions. */
export async function principalOfClient(client: ClientRecord): Promise<Principal> {
  const ids = new Set(roleIdsOf(client));
  const roles = (await identityProvider().roles(client.tenant_id)).filter((role) => ids.has(role.role_id));
  return {
    tenantId: client.tenant_id,
    clientId: client.client_id,
    name: client.description,
    roles: roles.map((role) => role.name),
    permissions: permissionsOfRoles(roles),
  };
}
