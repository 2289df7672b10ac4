import { describe, expect, it } from 'vitest';
import { acceptedContext, principalFromContext } from '../../../shared/auth/authorizer-context';
import type { Principal } from '../../../shared/auth/principal';

const principal = (tenantId: string): Principal => ({
  tenantId,
  clientId: `${tenantId}.client`,
  name: 'reader',
  roles: ['viewer'],
  permissions: ['connection:read', 'data:read'],
});

describe('the authorizer context', () => {
  it('carries the principal to the route, every time it is read', () => {
    const context = acceptedContext(principal('tenant-a'));
    for (const read of [1, 2]) expect(principalFromContext(context), `read ${read}`).toEqual(principal('tenant-a'));
    // What API Gateway hands over is a copy of the authorizer's context, not the object.
    expect(principalFromContext(JSON.parse(JSON.stringify(context)))).toEqual(principal('tenant-a'));
  });

  it('gives each principal its own context, also for principals read earlier', () => {
    const a = principalFromContext(acceptedContext(principal('tenant-a')));
    const b = principalFromContext(acceptedContext(principal('tenant-b')));
    expect([a, b]).toEqual([principal('tenant-a'), principal('tenant-b')]);
  });

  it('hands out principals no request can change for the next', () => {
    const read = principalFromContext(acceptedContext(principal('tenant-c'))) as Principal;
    expect(() => read.permissions.push('connection:write')).toThrow(TypeError);
    expect(() => Object.assign(read, { tenantId: 'tenant-d' })).toThrow(TypeError);
    expect(principalFromContext(acceptedContext(principal('tenant-c')))).toEqual(principal('tenant-c'));
  });

  it('refuses a principal that is not one, every time it is read', () => {
    const forged = { principal: JSON.stringify({ ...principal('tenant-a'), permissions: ['everything'] }) };
    for (const read of [1, 2]) expect(principalFromContext(forged), `read ${read}`).toBe('invalid_token');
  });

  it('passes a rejection on, and reads no context as a missing token', () => {
    expect(principalFromContext({ rejection: 'expired_token' })).toBe('expired_token');
    expect(principalFromContext(undefined)).toBe('missing_token');
  });
});
