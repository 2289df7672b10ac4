import type { Principal } from '../auth/principal';
import { perStores } from '../aws/per-stores';
import { identityProvider } from './provider';

/**
 * Whether the client behind a verified access token still stands: a deleted or expired
 * client's tokens stop working before their own expiry. The authorizer asks on every request;
 * what the store said is kept per warm function for at most REVOCATION_CHECK_SECONDS, which is
 * how long a deleted client's tokens may still work (docs/decisions.md). An expiry is known
 * exactly: it needs no store read to take effect.
 */
export const REVOCATION_CHECK_SECONDS = 5;

const CACHE_SIZE = 1000;
/** By client id (which names its tenant): when the store was read, and the client's expiry (null: none), or gone. */
const checkedIn = perStores(
  () => new Map<string, { readonly at: number; readonly expiresAt: number | null | 'gone' }>(),
);

export async function isRevoked(principal: Principal, now = Date.now()): Promise<boolean> {
  const checked = checkedIn();
  let known = checked.get(principal.clientId);
  if (known === undefined || now - known.at >= REVOCATION_CHECK_SECONDS * 1000) {
    const client = await identityProvider().findClient(principal.tenantId, principal.clientId);
    known = {
      at: now,
      expiresAt: client === undefined ? 'gone' : client.expires_at === null ? null : Date.parse(client.expires_at),
    };
    checked.delete(principal.clientId);
    if (checked.size >= CACHE_SIZE) checked.delete(checked.keys().next().value as string);
    checked.set(principal.clientId, known);
  }
  return known.expiresAt === 'gone' || (known.expiresAt !== null && known.expiresAt <= now);
}
