import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { RoleName } from '../auth/permissions';
import type { SecretDigest } from '../auth/client-secrets';
import { keys } from './keys';

/** An API client of a tenant; its secret is kept only as a digest. */
export interface ClientRecord {
  readonly tenant_id: string;
  readonly client_id: string;
  readonly secret: SecretDigest;
  readonly roles: readonly RoleName[];
  readonly description: string | null;
  readonly created_date: string;
  /** ISO 8601; the client cannot obtain tokens after it. */
  readonly expires_at: string | null;
}

export async function putClient(record: ClientRecord): Promise<void> {
  await dynamoDocumentClient().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.client(record.tenant_id, record.client_id), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function findClient(tenantId: string, clientId: string): Promise<ClientRecord | undefined> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({ TableName: config.tableName, Key: keys.client(tenantId, clientId), ConsistentRead: true }),
  );
  if (!result.Item) return undefined;
  const { pk: _pk, sk: _sk, ...record } = result.Item;
  return record as ClientRecord;
}
