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

  it('match their own digest only', () => {
    const secret = newClientSecret();
    const stored = digestSecret(secret);
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(newClientSecret(), stored)).toBe(false);
    expect(secretMatches(`${secret}x`, stored)).toBe(false);
    expect(secretMatches(secret.slice(0, -1), stored)).toBe(false);
    expect(secretMatches('', stored)).toBe(false);
  });

  it('are stored salted: the same secret gives different digests, each of which matches', () => {
    const secret = newClientSecret();
    const one = digestSecret(secret);
    const two = digestSecret(secret);
    expect(one.salt).not.toBe(two.salt);
    expect(one.digest).not.toBe(two.digest);
    expect(secretMatches(secret, one)).toBe(true);
    expect(secretMatches(secret, two)).toBe(true);
  });

  it('never store the secret itself', () => {
    const secret = newClientSecret();
    const stored = digestSecret(secret);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(4));
  });

  it('do not match when the salt or the digest is changed', () => {
    const secret = newClientSecret();
    const stored = digestSecret(secret, 'fixed-salt');
    expect(digestSecret(secret, 'fixed-salt')).toEqual(stored);
    expect(secretMatches(secret, { ...stored, salt: 'other-salt' })).toBe(false);
    expect(secretMatches(secret, { ...stored, digest: stored.digest.slice(0, -1) })).toBe(false);
    expect(secretMatches(secret, { ...stored, digest: '' })).toBe(false);
  });
});
