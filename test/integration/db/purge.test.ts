import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../infra/local/dynamodb';
import { deleteItems, keysUnder } from '../../../shared/db/purge';

/** Removal of whole item collections, through the store's own client, against the local DynamoDB. */
let local: LocalDynamoDb;
let db: DynamoDBDocumentClient;
const TableName = 'purge-test';

beforeAll(async () => {
  local = await startLocalDynamoDb();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: local.endpoint,
    TABLE_NAME: TableName,
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
  });
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  db = DynamoDBDocumentClient.from(client);
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
});
afterAll(() => local.close());

async function put(pk: string, sks: readonly string[]): Promise<void> {
  for (let index = 0; index < sks.length; index += 25) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: {
          [TableName]: sks
            .slice(index, index + 25)
            .map((sk) => ({ PutRequest: { Item: { pk, sk, payload: 'x'.repeat(100) } } })),
        },
      }),
    );
  }
}

describe('purging an item collection', () => {
  it('finds every key of a partition, or those under a sort-key prefix, and deletes them 25 at a time', async () => {
    const runs = Array.from({ length: 60 }, (_, index) => `R#1#N#${String(index).padStart(3, '0')}`);
    await put('T#t#DATASET#1', [...runs, '#HEAD', 'V#0001', 'R#2#N#001']);
    await put('T#t#DATASET#2', ['#HEAD']);

    const underPrefix = await keysUnder('T#t#DATASET#1', 'R#1#');
    expect(underPrefix.map((key) => key.sk)).toEqual(runs);
    await deleteItems(underPrefix);
    expect((await keysUnder('T#t#DATASET#1')).map((key) => key.sk)).toEqual(['#HEAD', 'R#2#N#001', 'V#0001']);

    await deleteItems(await keysUnder('T#t#DATASET#1'));
    expect(await keysUnder('T#t#DATASET#1')).toEqual([]);
    // Another partition is untouched.
    expect(await keysUnder('T#t#DATASET#2')).toEqual([{ pk: 'T#t#DATASET#2', sk: '#HEAD' }]);
  });
});
