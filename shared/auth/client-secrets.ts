import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { TENANT_ID_PATTERN } from '../db/keys';

/**
 * API client credentials. The client id names its tenant (`<tenant>.<random>`), so the token
 * exchange finds the client under tenant-first keys. The secret is 256 random bits and is
 * stored only as a slow, salted hash (scrypt at N=2^14, r=8, p=1, its authors' parameters for
 * interactive logins): a copy of the table gives nobody a usable secret. The secret's entropy
 * already defeats guessing; the cost stays low enough for a token exchange per request burst.
 */
export interface SecretDigest {
  /** Absent on digests written before the slow hash: a salted SHA-256, still verified. */
  readonly scheme?: 'scrypt';
  readonly salt: string;
  readonly digest: string;
}

/** scrypt's cost: 16 MiB of memory, one pass (tens of milliseconds). */
const SCRYPT = { N: 2 ** 14, r: 8, p: 1 } as const;
const DIGEST_BYTES = 32;

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

function scryptDigest(secret: string, salt: string): Promise<string> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, DIGEST_BYTES, SCRYPT, (error, key) =>
      error ? reject(error) : resolve(key.toString('base64url')),
    ),
  );
}

export async function digestSecret(
  secret: string,
  salt = randomBytes(16).toString('base64url'),
): Promise<Required<SecretDigest>> {
  return { scheme: 'scrypt', salt, digest: await scryptDigest(secret, salt) };
}

export async function secretMatches(secret: string, stored: SecretDigest): Promise<boolean> {
  const candidate = Buffer.from(
    stored.scheme === 'scrypt'
      ? await scryptDigest(secret, stored.salt)
      : createHash('sha256').update(stored.salt).update('\0').update(secret).digest('base64url'),
  );
  const expected = Buffer.from(stored.digest);
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}
