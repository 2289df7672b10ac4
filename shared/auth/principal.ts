import * as z from 'zod';
import { TENANT_ID_PATTERN } from '../db/keys';
import { PERMISSIONS, ROLE_NAMES } from './permissions';

/** The authenticated caller: an API client of one tenant, with the permissions of its roles. */
export const Principal = z.object({
  tenantId: z.string().regex(TENANT_ID_PATTERN),
  clientId: z.string().min(1),
  name: z.string().nullable(),
  roles: z.array(z.enum(ROLE_NAMES)),
  permissions: z.array(z.enum(PERMISSIONS)),
});
export type Principal = z.infer<typeof Principal>;
