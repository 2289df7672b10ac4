import * as z from 'zod';
import { TENANT_ID_PATTERN } from '../db/keys';
import { PERMISSIONS } from './permissions';

/** The authenticated caller: an API client of one tenant, with the permissions of its roles. */
export const Principal = z.object({
  tenantId: z.string().regex(TENANT_ID_PATTERN),
  clientId: z.string().min(1),
  name: z.string().nullable(),
  /** Names of its roles (roles are data: shared/identity/roles.ts). */
  roles: z.array(z.string()),
  permissions: z.array(z.enum(PERMISSIONS)),
  /** SDK tokens only (docs/apps.md): the app context, the id of the bundle whose install the token acts for. */
  appBundleId: z.int().min(1).optional(),
  /** SDK tokens only: the session context, the app session the token was issued for. */
  sessionId: z.string().min(1).optional(),
});
export type Principal = z.infer<typeof Principal>;
