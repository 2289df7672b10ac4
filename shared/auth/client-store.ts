import * as z from 'zod';
import { SCRYPT_COSTS } from '../config';
import { RecordStore } from '../db/record-store';
import type { SecretDigest } from './client-secrets';

/** An API client of a tenant (a tenant token); its secret is kept only as a slow hash. */
export const ClientRecord = z.object({
  tenant_id: z.string(),
  client_id: z.string(),
  secret: z.object({
    scheme: z.literal('scrypt').optional(),
    cost: z.number().int().min(SCRYPT_COSTS.min).max(SCRYPT_COSTS.max).optional(),
    salt: z.string(),
    digest: z.string(),
  }) satisfies z.ZodType<SecretDigest>,
  /** Names of its roles when it was made. */
  roles: z.array(z.string()),
  /** Ids of its roles at the identity provider; absent on clients made before roles were data (built-in roles by name). */
  role_ids: z.array(z.string()).optional(),
  description: z.string().nullable(),
  created_date: z.iso.datetime(),
  /** ISO 8601; the client cannot obtain tokens after it, and its tokens stop working. */
  expires_at: z.iso.datetime().nullable(),
});
export type ClientRecord = Readonly<z.infer<typeof ClientRecord>>;

/** The store of API clients (keys.client). */
export const clientStore = new RecordStore({
  kind: 'CLIENT',
  schema: ClientRecord,
  idOf: (client) => client.client_id,
});
