/**
 * Permissions a route can require, and the built-in roles that grant them: the seed of the
 * identity provider's roles (shared/identity/roles.ts), where roles are data. Tokens carry the
 * permissions of their client's roles, resolved when the token is issued.
 *
 * New capabilities add their permissions here and grant them to roles; a route names exactly
 * one permission (or none, for the public routes).
 */
export const PERMISSIONS = [
  'connection:read',
  'connection:write',
  'connection:test',
  /** Read data sources, data tables, versions, previews, samples and schema analyses. */
  'data:read',
  /** Define data sources and data tables, browse sources, import and delete versions, run SHALLOW analyses. */
  'data:write',
  /** "Analyze recipe schema" (spec 5.2): request a FULL schema analysis. */
  'schema:analyze',
  /** Manage the tenant's API tokens (/tokens) and read the roles they may carry (/roles). */
  'token:manage',
  /** Accept a data version's failed data-quality report, so that it may be released, exported and transferred. */
  'quality:accept',
  /** Create quota contracts and change the current one's overage (/quota); reading them is data:read. */
  'quota:manage',
  /** Run an app's declared actions (spec 5.2, "a permission to run apps": 80-8030 without it, docs/apps.md). */
  'app:run',
  /** App bundles, their versions and publishing, installs and links (/apps/...). */
  'app:manage',
  /** The admin plane (/admin/...): feature toggles and tenants of the whole platform, never one tenant's data. */
  'platform:admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: readonly Permission[] = ['connection:read', 'data:read'];
const EDITOR: readonly Permission[] = [...VIEWER, 'connection:write', 'connection:test', 'data:write', 'app:run'];
const ANALYST: readonly Permission[] = [...EDITOR, 'schema:analyze'];

export const ROLES = {
  viewer: VIEWER,
  editor: EDITOR,
  /** Editor plus FULL schema analysis. */
  'schema-analyst': ANALYST,
  /** Everything inside the tenant, including its API tokens. */
  admin: [...ANALYST, 'token:manage', 'quota:manage', 'app:manage', 'quality:accept'],
  /** Cross-tenant administration (feature toggles, tenants) once it exists. */
  'system-admin': [...ANALYST, 'token:manage', 'quota:manage', 'app:manage', 'quality:accept'],
  /**
   * The platform's operator: the admin plane and nothing inside a tenant. Distinct from every
   * tenant role, so a tenant's admin never reaches /admin/... (docs/admin-plane.md).
   */
  'platform-admin': ['platform:admin'],
} as const satisfies Record<string, readonly Permission[]>;

export type RoleName = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

export function isRoleName(name: string): name is RoleName {
  return Object.hasOwn(ROLES, name);
}

export function permissionsOf(roles: readonly RoleName[]): Permission[] {
  return [...new Set(roles.flatMap((role) => ROLES[role]))].sort();
}
