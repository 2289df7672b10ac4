import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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

  it('are a slow hash: scrypt, as the scheme says, not a plain SHA-256 of salt and secret', async () => {
    const secret = newClientSecret();
    const stored = await digestSecret(secret, 'fixed-salt');
    expect(stored.scheme).toBe('scrypt');
    const sha256 = createHash('sha256').update('fixed-salt').update('\0').update(secret).digest('base64url');
    expect(stored.digest).not.toBe(sha256);
    const started = performance.now();
    await digestSecret(secret);
    // Far more work than one SHA-256 (microseconds): tens of milliseconds even on a fast core.
    expect(performance.now() - started).toBeGreaterThan(5);
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
