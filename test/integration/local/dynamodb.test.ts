import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  QueryCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../infra/local/dynamodb';

let local: LocalDynamoDb;
let db: DynamoDBDocumentClient;
const TableName = 'tx-test';

function clientOf(store: LocalDynamoDb): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: store.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
}

async function createTable(client: DynamoDBClient): Promise<void> {
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
  // dynalite makes a table ACTIVE on a timer after answering; until then it is not found.
  for (let tries = 0; tries < 200; tries += 1) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${TableName} did not become ACTIVE`);
}

beforeAll(async () => {
  local = await startLocalDynamoDb();
  const client = clientOf(local);
  db = DynamoDBDocumentClient.from(client);
  await createTable(client);
});
afterAll(() => local.close());

const get = async (pk: string) =>
  (await db.send(new GetCommand({ TableName, Key: { pk, sk: 'x' }, ConsistentRead: true }))).Item;

describe('local DynamoDB TransactWriteItems', () => {
  it('applies every write when all conditions hold', async () => {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk: 'a', sk: 'x', n: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName, Item: { pk: 'b', sk: 'x', n: 2 } } },
        ],
      }),
    );
    expect(await get('a')).toMatchObject({ n: 1 });
    expect(await get('b')).toMatchObject({ n: 2 });
  });

  it('applies nothing and reports a reason per item when one condition fails', async () => {
    const attempt = db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk: 'c', sk: 'x', n: 3 } } },
          {
            Update: {
              TableName,
              Key: { pk: 'a', sk: 'x' },
              UpdateExpression: 'SET n = :n',
              ConditionExpression: 'n = :old',
              ExpressionAttributeValues: { ':n': 10, ':old': 99 },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons!;
    expect(reasons.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(reasons[1]!.Item).toMatchObject({ n: { N: '1' } });
    expect(await get('c')).toBeUndefined();
    expect(await get('a')).toMatchObject({ n: 1 });
  });

  it('honours ConditionCheck without writing the checked item', async () => {
    await expect(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName,
                Key: { pk: 'missing', sk: 'x' },
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            { Put: { TableName, Item: { pk: 'd', sk: 'x' } } },
          ],
        }),
      ),
    ).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(await get('d')).toBeUndefined();
  });

  it('refuses two operations on one item', async () => {
    await expect(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk: 'e', sk: 'x' } } },
            { Delete: { TableName, Key: { pk: 'e', sk: 'x' } } },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('rolls back earlier writes when a later write fails while applying', async () => {
    await db.send(new PutCommand({ TableName, Item: { pk: 'f', sk: 'x', s: 'text' } }));
    await expect(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk: 'g', sk: 'x' } } },
            {
              Update: {
                TableName,
                Key: { pk: 'f', sk: 'x' },
                UpdateExpression: 'ADD s :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    expect(await get('g')).toBeUndefined();
  });

  it('lets exactly one of many racing transactions claim the same unique item', async () => {
    const attempts = Array.from({ length: 25 }, (_, i) =>
      db
        .send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName, Item: { pk: `owner-${i}`, sk: 'x' } } },
              {
                Put: {
                  TableName,
                  Item: { pk: 'unique-name', sk: 'x', owner: i },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        )
        .then(() => i),
    );
    const results = await Promise.allSettled(attempts);
    const winners = results.filter((r) => r.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const winner = (winners[0] as PromiseFulfilledResult<number>).value;
    expect(await get('unique-name')).toMatchObject({ owner: winner });
    for (let i = 0; i < 25; i += 1) {
      expect(Boolean(await get(`owner-${i}`))).toBe(i === winner);
    }
  });

  it('keeps plain conditional updates race-free', async () => {
    await db.send(new PutCommand({ TableName, Item: { pk: 'counter', sk: 'x', v: 0 } }));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db.send(
          new UpdateCommand({
            TableName,
            Key: { pk: 'counter', sk: 'x' },
            UpdateExpression: 'SET v = :next',
            ConditionExpression: 'v = :zero',
            ExpressionAttributeValues: { ':next': 1, ':zero': 0 },
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('closing local DynamoDB while a query runs', () => {
  it('lets the query finish before the store closes: it never reads a closed store', async () => {
    // On disk, as npm start and the restart test keep it: LevelDB refuses reads once closed.
    const folder = mkdtempSync(join(tmpdir(), 'dps-dynamodb-close-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const uncaught: unknown[] = [];
    const record = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', record);
    onTestFinished(() => void process.off('uncaughtException', record));
    const query = new QueryCommand({
      TableName,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': { S: 'p' } },
    });
    // The window is a query between finding its table and reading its items; closes at
    // delays from 0 to 3 ms after sending land in it within a few dozen tries.
    for (let attempt = 0; attempt < 60 && uncaught.length === 0; attempt += 1) {
      const store = await startLocalDynamoDb({ path: folder });
      const client = clientOf(store);
      if (attempt === 0) await createTable(client);
      await client.send(query);
      const answered = client.send(query).catch(() => undefined);
      const closeAt = performance.now() + (attempt % 10) * 0.3;
      while (performance.now() < closeAt) await new Promise((resolve) => setImmediate(resolve));
      await store.close();
      await answered;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(uncaught).toEqual([]);
  });
});
