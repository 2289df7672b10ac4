/**
 * The cold start floor of `npm run bench -- cost`: a function that loads only the DynamoDB
 * client and answers one GetItem, bundled as every route is. No route can start faster.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient({});

/** One consistent GetItem of an item that need not exist: 200 when found, 404 when not. */
export async function handler(): Promise<{ statusCode: number }> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: process.env.TABLE_NAME,
      Key: { pk: { S: 'cost-bench' }, sk: { S: 'floor' } },
      ConsistentRead: true,
    }),
  );
  return { statusCode: Item ? 200 : 404 };
}
