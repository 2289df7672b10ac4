import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TENANT_ID_PATTERN } from '../db/keys';

/**
 * API client credentials. The client id names its tenant (`<tenant>.<random>`), so the token
 * exchange finds the client under tenant-first keys. The secret is 256 random bits and is
 * stored only as a salted SHA-256 digest: with that much entropy a slow hash adds nothing,
 * and the exchange stays fast.
 */
export interface SecretDigest {
  readonly salt: string;
  readonly digest: string;
}

export function newClientId(tenantId: string): string {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`);
  return `${tenantId}.${randomBytes(16).toString('hex')}`;
}

export function tenantOfClientId(clientId: string): string | undefined {
  const match = /^([a-z0-9-]{1,63})\.[0-9a-f]{32}$/.exec(clientId);
  return match && TENANT_ID_PATTERN.test(match[1]!) ? match[1] : undefined;
}

export function newClientSecret(): string {
  return `dps_${randomBytes(32).toString('base64url')}`;
}

export function digestSecret(secret: string, salt = randomBytes(16).toString('base64url')): SecretDigest {
  return { salt, digest: createHash('sha256').update(salt).update('\0').update(secret).digest('base64url') };
}

export function secretMatches(secret: string, stored: SecretDigest): boolean {
  const candidate = Buffer.from(digestSecret(secret, stored.salt).digest);
  const expected = Buffer.from(stored.digest);
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}
