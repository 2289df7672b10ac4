import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLE_NAMES, isRoleName, permissionsOf } from '../../../shared/auth/permissions';

describe('permissions of roles', () => {
  it('lets a viewer read and nothing else', () => {
    expect(permissionsOf(['viewer'])).toEqual(['connection:read', 'data:read']);
  });

  it('lets an editor read, write, test and run apps, but not request FULL schema analyses', () => {
    expect(permissionsOf(['editor'])).toEqual([
      'app:run',
      'connection:read',
      'connection:test',
      'connection:write',
      'data:read',
      'data:write',
    ]);
  });

  it('grants every tenant permission to admin and system-admin, and not the admin plane', () => {
    for (const role of ['admin', 'system-admin'] as const) {
      expect(permissionsOf([role]), role).toEqual(PERMISSIONS.filter((name) => name !== 'platform:admin').sort());
    }
  });

  it('lets a schema-analyst do all an editor does and FULL analyses, but not manage tokens', () => {
    expect(permissionsOf(['schema-analyst'])).toEqual([...permissionsOf(['editor']), 'schema:analyze'].sort());
    expect(permissionsOf(['schema-analyst'])).not.toContain('token:manage');
  });

  it('lets a platform admin reach the admin plane and nothing inside a tenant', () => {
    expect(permissionsOf(['platform-admin'])).toEqual(['platform:admin']);
    for (const role of ['viewer', 'editor', 'schema-analyst', 'admin', 'system-admin'] as const)
      expect(permissionsOf([role]), role).not.toContain('platform:admin');
  });

  it('unites the permissions of several roles without duplicates, sorted', () => {
    expect(permissionsOf(['viewer', 'editor', 'viewer'])).toEqual([
      'app:run',
      'connection:read',
      'connection:test',
      'connection:write',
      'data:read',
      'data:write',
    ]);
  });

  it('grants nothing without roles', () => {
    expect(permissionsOf([])).toEqual([]);
  });

  it('knows exactly the six roles', () => {
    expect([...ROLE_NAMES].sort()).toEqual([
      'admin',
      'editor',
      'platform-admin',
      'schema-analyst',
      'system-admin',
      'viewer',
    ]);
  });

  it('recognises role names and nothing else', () => {
    for (const role of ROLE_NAMES) expect(isRoleName(role)).toBe(true);
    for (const name of ['root', 'Viewer', '', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(isRoleName(name), name).toBe(false);
    }
  });
});
