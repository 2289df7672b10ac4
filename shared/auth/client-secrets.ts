import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { config } from '../config';
import { TENANT_ID_PATTERN } from '../db/keys';

/**
 * API client credentials. The client id names its tenant (`<tenant>.<random>`), so the token
 * exchange finds the client under tenant-first keys. The secret is 256 random bits and is
 * stored only as a slow, salted hash (scrypt at N=2^14, r=8, p=1 by default, its authors'
 * parameters for interactive logins): a copy of the table gives nobody a usable secret. The
 * secret's entropy already defeats guessing; the cost stays low enough for a token exchange per
 * request burst. The cost is stored with each digest, so a digest keeps verifying when the
 * setting (CLIENT_SECRET_SCRYPT_COST) changes; the test suite lowers it, as it makes a thousand
 * clients.
 */
export interface SecretDigest {
  /** Absent on digests written before the slow hash: a salted SHA-256, still verified. */
  readonly scheme?: 'scrypt';
  /** log2 of scrypt's N; absent on digests written before it was stored: 14. */
  readonly cost?: number;
  readonly salt: string;
  readonly digest: string;
}

/** The cost of digests that do not name theirs: 16 MiB of memory, one pass (tens of milliseconds). */
const UNNAMED_COST = 14;
const BLOCK_SIZE = 8;
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

function scryptDigest(secret: string, salt: string, cost: number): Promise<string> {
  const N = 2 ** cost;
  // scrypt needs 128·N·r bytes; Node refuses more than 32 MiB unless told (cost 16 is 64 MiB).
  const options = { N, r: BLOCK_SIZE, p: 1, maxmem: 256 * N * BLOCK_SIZE };
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, DIGEST_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key.toString('base64url')),
    ),
  );
}

/** A new digest of `secret`, at the configured cost unless `cost` is given. */
export async function digestSecret(
  secret: string,
  salt = randomBytes(16).toString('base64url'),
  cost = config.clientSecretScryptCost,
): Promise<Required<SecretDigest>> {
  return { scheme: 'scrypt', cost, salt, digest: await scryptDigest(secret, salt, cost) };
}

/** Whether `secret` is the one `stored` was made from, at the cost `stored` was made with. */
export async function secretMatches(secret: string, stored: SecretDigest): Promise<boolean> {
  const candidate = Buffer.from(
    stored.scheme === 'scrypt'
      ? await scryptDigest(secret, stored.salt, stored.cost ?? UNNAMED_COST)
      : createHash('sha256').update(stored.salt).update('\0').update(secret).digest('base64url'),
  );
  const expected = Buffer.from(stored.digest);
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}
