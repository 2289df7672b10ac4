/**
 * Permissions a route can require, and the roles that grant them. Tokens carry the
 * permissions of their roles, resolved when the token is issued.
 *
 * New capabilities add their permissions here and grant them to roles; a route names exactly
 * one permission (or none, for the public routes).
 */
export const PERMISSIONS = ['connection:read', 'connection:write', 'connection:test'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: readonly Permission[] = ['connection:read'];
const EDITOR: readonly Permission[] = [...VIEWER, 'connection:write', 'connection:test'];

export const ROLES = {
  viewer: VIEWER,
  editor: EDITOR,
  /** Editor plus FULL schema analysis, which arrives with schema analysis. */
  'schema-analyst': EDITOR,
  /** Everything inside the tenant, including token management once it exists. */
  admin: EDITOR,
  /** Cross-tenant administration (feature toggles, tenants) once it exists. */
  'system-admin': EDITOR,
} as const satisfies Record<string, readonly Permission[]>;

export type RoleName = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

export function isRoleName(name: string): name is RoleName {
  return Object.hasOwn(ROLES, name);
}

export function permissionsOf(roles: readonly RoleName[]): Permission[] {
  return [...new Set(roles.flatMap((role) => ROLES[role]))].sort();
}
