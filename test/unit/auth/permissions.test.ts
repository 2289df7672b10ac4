import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLE_NAMES, isRoleName, permissionsOf } from '../../../shared/auth/permissions';

describe('permissions of roles', () => {
  it('lets a viewer read and nothing else', () => {
    expect(permissionsOf(['viewer'])).toEqual(['connection:read', 'data:read']);
  });

  it('lets an editor read, write and test, but not request FULL schema analyses', () => {
    expect(permissionsOf(['editor'])).toEqual([
      'connection:read',
      'connection:test',
      'connection:write',
      'data:read',
      'data:write',
    ]);
  });

  it('grants every current permission to admin and system-admin', () => {
    for (const role of ['admin', 'system-admin'] as const) {
      expect(permissionsOf([role]), role).toEqual([...PERMISSIONS].sort());
    }
  });

  it('lets a schema-analyst do all an editor does and FULL analyses, but not manage tokens', () => {
    expect(permissionsOf(['schema-analyst'])).toEqual([...permissionsOf(['editor']), 'schema:analyze'].sort());
    expect(permissionsOf(['schema-analyst'])).not.toContain('token:manage');
  });

  it('unites the permissions of several roles without duplicates, sorted', () => {
    expect(permissionsOf(['viewer', 'editor', 'viewer'])).toEqual([
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

  it('knows exactly the five roles', () => {
    expect([...ROLE_NAMES].sort()).toEqual(['admin', 'editor', 'schema-analyst', 'system-admin', 'viewer']);
  });

  it('recognises role names and nothing else', () => {
    for (const role of ROLE_NAMES) expect(isRoleName(role)).toBe(true);
    for (const name of ['root', 'Viewer', '', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(isRoleName(name), name).toBe(false);
    }
  });
});
