import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { keys } from '../db/keys';
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

export async function putClient(record: ClientRecord): Promise<void> {
  await dynamoDocumentClient().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.client(record.tenant_id, record.client_id), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The stored client, read through its schema (the item's keys are dropped), or undefined. */
export async function findClient(tenantId: string, clientId: string): Promise<ClientRecord | undefined> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({ TableName: config.tableName, Key: keys.client(tenantId, clientId), ConsistentRead: true }),
  );
  return result.Item ? ClientRecord.parse(result.Item) : undefined;
}
