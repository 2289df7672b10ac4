import * as z from 'zod';
import { is } from '../db/expressions';
import { keys } from '../db/keys';
import { putItem, readItem } from '../db/table';
import type { SecretDigest } from './client-secrets';
import { ROLE_NAMES } from './permissions';

/** An API client of a tenant; its secret is kept only as a digest. */
const ClientRecord = z.object({
  tenant_id: z.string(),
  client_id: z.string(),
  secret: z.object({ salt: z.string(), digest: z.string() }) satisfies z.ZodType<SecretDigest>,
  roles: z.array(z.enum(ROLE_NAMES)),
  description: z.string().nullable(),
  created_date: z.iso.datetime(),
  /** ISO 8601; the client cannot obtain tokens after it. */
  expires_at: z.iso.datetime().nullable(),
});
export type ClientRecord = Readonly<z.infer<typeof ClientRecord>>;

/** Stores a new client (checked with the schema its reads use); an existing client id is an error. */
export async function putClient(record: ClientRecord): Promise<void> {
  const key = keys.client(record.tenant_id, record.client_id);
  if (!(await putItem(key, ClientRecord.parse(record), is.absent('pk'))))
    throw new Error(`client ${record.tenant_id}/${record.client_id} already exists`);
}

/** The stored client, read through its schema (the item's keys are dropped), or undefined. */
export async function findClient(tenantId: string, clientId: string): Promise<ClientRecord | undefined> {
  const item = await readItem(keys.client(tenantId, clientId));
  return item ? ClientRecord.parse(item) : undefined;
}
