/**
 * The twin's one DynamoDB table, made as the stage's (shared/db/table-schema.ts) in its local
 * DynamoDB when the twin starts.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../../shared/db/table-schema';

/** Creates the service's table (TABLE_SCHEMA) in the local DynamoDB unless it is there, and waits until it is ACTIVE. */
export async function ensureTable(
  endpoint: string,
  tableName: string,
  credentials: { readonly accessKeyId: string; readonly secretAccessKey: string },
): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_SCHEMA.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_SCHEMA.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  try {
    await untilActive(client, tableName);
  } finally {
    client.destroy();
  }
}

/**
 * Waits for the table to be ACTIVE: dynalite answers CreateTable while the table is still
 * CREATING (even with no delay configured, the switch is a later write of its store), and a
 * request in between is ResourceNotFoundException. Seen with the on-disk store on a busy machine.
 */
async function untilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 1; attempt <= 500; attempt += 1) {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the local table ${tableName} did not become ACTIVE`);
}
