import * as z from 'zod';
import { PERMISSIONS, ROLE_NAMES, permissionsOf, type Permission } from '../auth/permissions';
import { AppError } from '../errors/app-error';

/**
 * Roles are data of the identity provider: each has an id, a name and the permissions it
 * grants. Nothing makes names unique (an identity provider does not either), so a name may
 * resolve to several roles. The built-in roles are seeded from shared/auth/permissions.ts.
 */
export const Role = z.object({
  role_id: z.string().min(1).max(255),
  name: z.string().min(1).max(255),
  permissions: z.array(z.enum(PERMISSIONS)),
  /** Seeded from the code, which keeps it as the code says. */
  built_in: z.boolean(),
});
export type Role = z.infer<typeof Role>;

/** The id of a built-in role: the same in every tenant, so the seed can be written again without duplicates. */
export function builtInRoleId(name: string): string {
  return `builtin.${name}`;
}

/** The built-in roles, as the code defines them today. */
export function builtInRoles(): Role[] {
  return ROLE_NAMES.map((name) => ({
    role_id: builtInRoleId(name),
    name,
    permissions: permissionsOf([name]),
    built_in: true,
  }));
}

/** The one role of each name, in the order named: 30-7001 for a name no role has, 30-7002 for one several have. */
export function resolveRoleNames(roles: readonly Role[], names: readonly string[]): Role[] {
  return [...new Set(names)].map((name) => {
    const named = roles.filter((role) => role.name === name);
    if (named.length === 0) throw new AppError('30-7001', { params: [name] });
    if (named.length > 1) throw new AppError('30-7002', { params: [name] });
    return named[0]!;
  });
}

/** Every permission the roles grant, sorted, once each. */
export function permissionsOfRoles(roles: readonly Role[]): Permission[] {
  return [...new Set(roles.flatMap((role) => role.permissions))].sort();
}
