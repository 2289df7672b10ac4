import { createHash, scryptSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  digestSecret,
  newClientId,
  newClientSecret,
  secretMatches,
  tenantOfClientId,
} from '../../../shared/auth/client-secrets';

describe('client ids', () => {
  it('name their tenant followed by 32 random hex digits', () => {
    const id = newClientId('acme-corp');
    expect(id).toMatch(/^acme-corp\.[0-9a-f]{32}$/);
    expect(newClientId('acme-corp')).not.toBe(id);
  });

  it('give their tenant back', () => {
    for (const tenant of ['a', 'acme', 'acme-corp-2', '0', 'x'.repeat(63)]) {
      expect(tenantOfClientId(newClientId(tenant))).toBe(tenant);
    }
  });

  it('cannot be made for an invalid tenant id', () => {
    for (const tenant of ['', 'Acme', 'acme corp', '-acme', 'acme-', 'acme.corp', 'x'.repeat(64)]) {
      expect(() => newClientId(tenant), tenant).toThrow(/invalid tenant id/);
    }
  });

  it('tenantOfClientId rejects malformed ids', () => {
    const hex = '0123456789abcdef0123456789abcdef';
    for (const id of [
      '',
      'acme',
      `acme.${hex.slice(1)}`,
      `acme.${hex}0`,
      `acme.${hex.toUpperCase()}`,
      `ACME.${hex}`,
      `-acme.${hex}`,
      `acme-.${hex}`,
      `.${hex}`,
      `ac.me.${hex}`,
      `acme.${hex}\n`,
      `${'x'.repeat(64)}.${hex}`,
    ]) {
      expect(tenantOfClientId(id), JSON.stringify(id)).toBeUndefined();
    }
    expect(tenantOfClientId(`acme.${hex}`)).toBe('acme');
  });
});

describe('client secrets', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('carry 256 random bits behind a recognisable prefix', () => {
    const secret = newClientSecret();
    expect(secret).toMatch(/^dps_[A-Za-z0-9_-]{43}$/);
    expect(newClientSecret()).not.toBe(secret);
  });

  it('match their own digest only', async () => {
    const secret = newClientSecret();
    const stored = await digestSecret(secret);
    expect(await secretMatches(secret, stored)).toBe(true);
    expect(await secretMatches(newClientSecret(), stored)).toBe(false);
    expect(await secretMatches(`${secret}x`, stored)).toBe(false);
    expect(await secretMatches(secret.slice(0, -1), stored)).toBe(false);
    expect(await secretMatches('', stored)).toBe(false);
  });

  it('are stored salted: the same secret gives different digests, each of which matches', async () => {
    const secret = newClientSecret();
    const one = await digestSecret(secret);
    const two = await digestSecret(secret);
    expect(one.salt).not.toBe(two.salt);
    expect(one.digest).not.toBe(two.digest);
    expect(await secretMatches(secret, one)).toBe(true);
    expect(await secretMatches(secret, two)).toBe(true);
  });

  it('never store the secret itself', async () => {
    const secret = newClientSecret();
    const stored = await digestSecret(secret);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(4));
  });

  it('are a slow hash: scrypt at N=2^14, r=8, p=1 unless a stage sets another cost, not a SHA-256 of salt and secret', async () => {
    // The suite runs at a lower cost (vitest.config.ts); a stage that sets nothing gets this one.
    vi.stubEnv('CLIENT_SECRET_SCRYPT_COST', undefined);
    const secret = newClientSecret();
    const stored = await digestSecret(secret, 'fixed-salt');
    expect(stored).toMatchObject({ scheme: 'scrypt', cost: 14, salt: 'fixed-salt' });
    expect(stored.digest).toBe(scryptSync(secret, 'fixed-salt', 32, { N: 2 ** 14, r: 8, p: 1 }).toString('base64url'));
    const sha256 = createHash('sha256').update('fixed-salt').update('\0').update(secret).digest('base64url');
    expect(stored.digest).not.toBe(sha256);
  });

  it('keep the cost they were made with: they match after the setting changes, and a digest naming none is 2^14', async () => {
    const secret = newClientSecret();
    vi.stubEnv('CLIENT_SECRET_SCRYPT_COST', '10');
    const cheap = await digestSecret(secret);
    vi.stubEnv('CLIENT_SECRET_SCRYPT_COST', '15');
    const dear = await digestSecret(secret);
    expect([cheap.cost, dear.cost]).toEqual([10, 15]);
    expect(await secretMatches(secret, cheap)).toBe(true);
    vi.stubEnv('CLIENT_SECRET_SCRYPT_COST', '10');
    expect(await secretMatches(secret, dear)).toBe(true);
    // The cost is part of what is checked: the same digest read at another cost does not match.
    expect(await secretMatches(secret, { ...cheap, cost: 11 })).toBe(false);
    const { cost: _unnamed, ...before } = await digestSecret(secret, 'salt', 14);
    expect(await secretMatches(secret, before)).toBe(true);
    expect(await secretMatches(secret, { ...(await digestSecret(secret, 'salt', 10)), cost: undefined })).toBe(false);
  });

  it('refuse a cost setting outside 10 to 16, naming the variable', async () => {
    for (const value of ['9', '17', '14.5', 'high']) {
      vi.stubEnv('CLIENT_SECRET_SCRYPT_COST', value);
      await expect(digestSecret(newClientSecret())).rejects.toThrow(
        'environment variable CLIENT_SECRET_SCRYPT_COST must be a whole number from 10 to 16',
      );
    }
  });

  it('still verify a digest written before the slow hash (salted SHA-256, no scheme)', async () => {
    const secret = newClientSecret();
    const legacy = {
      salt: 'old-salt',
      digest: createHash('sha256').update('old-salt').update('\0').update(secret).digest('base64url'),
    };
    expect(await secretMatches(secret, legacy)).toBe(true);
    expect(await secretMatches(newClientSecret(), legacy)).toBe(false);
  });

  it('do not match when the salt or the digest is changed', async () => {
    const secret = newClientSecret();
    const stored = await digestSecret(secret, 'fixed-salt');
    expect(await digestSecret(secret, 'fixed-salt')).toEqual(stored);
    expect(await secretMatches(secret, { ...stored, salt: 'other-salt' })).toBe(false);
    expect(await secretMatches(secret, { ...stored, digest: stored.digest.slice(0, -1) })).toBe(false);
    expect(await secretMatches(secret, { ...stored, digest: '' })).toBe(false);
  });
});
