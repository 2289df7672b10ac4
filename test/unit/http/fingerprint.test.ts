import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../shared/http/fingerprint';

describe('fingerprint', () => {
  it('is a base64url SHA-256 digest', () => {
    expect(fingerprint({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('does not depend on member order, at any depth', () => {
    const one = { name: 'n', auth: { endpoint: 'https://e', keys: { a: 1, b: 2 } }, list: [{ x: 1, y: 2 }] };
    const two = { list: [{ y: 2, x: 1 }], auth: { keys: { b: 2, a: 1 }, endpoint: 'https://e' }, name: 'n' };
    expect(fingerprint(two)).toBe(fingerprint(one));
  });

  it('is the same for equal bodies', () => {
    expect(fingerprint({ a: [1, 'x', null, true] })).toBe(fingerprint({ a: [1, 'x', null, true] }));
  });

  it('changes when a value changes', () => {
    const base = fingerprint({ name: 'n', size: 1, on: true, tags: ['a'] });
    expect(fingerprint({ name: 'm', size: 1, on: true, tags: ['a'] })).not.toBe(base);
    expect(fingerprint({ name: 'n', size: 2, on: true, tags: ['a'] })).not.toBe(base);
    expect(fingerprint({ name: 'n', size: '1', on: true, tags: ['a'] })).not.toBe(base);
    expect(fingerprint({ name: 'n', size: 1, on: false, tags: ['a'] })).not.toBe(base);
    expect(fingerprint({ name: 'n', size: 1, on: true, tags: ['b'] })).not.toBe(base);
    expect(fingerprint({ name: 'n', size: 1, on: true, tags: ['a'], extra: null })).not.toBe(base);
  });

  it('changes when a member is renamed or moved to another level', () => {
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ b: 1 }));
    expect(fingerprint({ a: { b: 1 } })).not.toBe(fingerprint({ b: { a: 1 } }));
    expect(fingerprint({ a: { b: 1 } })).not.toBe(fingerprint({ a: 1, b: 1 }));
  });

  it('keeps array order significant', () => {
    expect(fingerprint({ tags: ['a', 'b'] })).not.toBe(fingerprint({ tags: ['b', 'a'] }));
  });
});
