import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../infra/local/dynamodb';
import { dynamoDocumentClient } from '../../../shared/aws/clients';

const TableName = 'clients-test';
/** The reference client's table: the same commands there, so each client's writes meet only its own earlier ones. */
const ReferenceTable = 'clients-reference';
let local: LocalDynamoDb;
/** The SDK's own document client, configured as shared/aws/clients.ts configures its one. */
let reference: DynamoDBDocumentClient;

beforeAll(async () => {
  local = await startLocalDynamoDb();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: local.endpoint,
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
  });
  const base = new DynamoDBClient({});
  reference = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  for (const table of [TableName, ReferenceTable]) {
    await base.send(
      new CreateTableCommand({
        TableName: table,
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
  }
});
afterAll(() => local.close());

/** Request bodies as sent, by client, recorded after signing. */
function recordBodies(client: DynamoDBDocumentClient, name: string): string[] {
  const bodies: string[] = [];
  client.middlewareStack.add(
    (next) => (args) => {
      bodies.push(String((args.request as { body?: unknown }).body));
      return next(args);
    },
    { step: 'finalizeRequest', name },
  );
  return bodies;
}

const item = (pk: string, sk: string) => ({
  pk,
  sk,
  n: 42,
  text: `value of ${pk}/${sk}`,
  nested: { list: [1, 'two', { three: true }], none: null, gone: undefined },
  set: new Set(['a', 'b']),
});

/** An output without what differs between two sends of the same request: its metadata, the table's name as a key and the order of BatchGet's items. */
function comparable(output: object): object {
  const { $metadata, Responses, ...rest } = output as {
    $metadata: unknown;
    Responses?: Record<string, { sk: string }[]>;
  };
  const responses =
    Responses &&
    Object.fromEntries(
      Object.entries(Responses).map(([table, items]) => [
        table === ReferenceTable ? TableName : table,
        [...items].sort((a, b) => a.sk.localeCompare(b.sk)),
      ]),
    );
  return { ...rest, ...(responses ? { Responses: responses } : {}), metadataPresent: $metadata !== undefined };
}

describe('the shared document client', () => {
  it('sends the requests the SDK document client sends and reads the same outputs', async () => {
    const client = dynamoDocumentClient();
    const sent = recordBodies(client, 'recordShared');
    const expected = recordBodies(reference, 'recordReference');
    const commands = (table: string) => [
      new PutCommand({ TableName: table, Item: item('p', '1') }),
      new PutCommand({ TableName: table, Item: item('p', '2'), ReturnValues: 'ALL_OLD' }),
      new GetCommand({ TableName: table, Key: { pk: 'p', sk: '1' }, ConsistentRead: true }),
      new UpdateCommand({
        TableName: table,
        Key: { pk: 'p', sk: '2' },
        UpdateExpression: 'SET n = n + :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'p' },
        ConsistentRead: true,
      }),
      new BatchGetCommand({
        RequestItems: {
          [table]: {
            Keys: [
              { pk: 'p', sk: '1' },
              { pk: 'p', sk: '2' },
            ],
            ConsistentRead: true,
          },
        },
      }),
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: item('q', '1'), ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
      new DeleteCommand({ TableName: table, Key: { pk: 'q', sk: '1' }, ReturnValues: 'ALL_OLD' }),
    ];
    // Each command twice: the second of a class runs through the stack resolved for the first.
    for (const round of [1, 2]) {
      const ourCommands = commands(TableName);
      const theirCommands = commands(ReferenceTable);
      for (const [index, command] of ourCommands.entries()) {
        const ours = await client.send(command as GetCommand);
        const theirs = await reference.send(theirCommands[index] as GetCommand);
        expect(comparable(ours), `${command.constructor.name}, round ${round}`).toEqual(comparable(theirs));
      }
    }
    // TransactWriteItems carries a random idempotency token of the SDK's.
    const normal = (body: string) =>
      body.replaceAll(ReferenceTable, TableName).replace(/"ClientRequestToken":"[^"]+"/, '"ClientRequestToken":"…"');
    expect(sent.map(normal)).toEqual(expected.map(normal));
    expect(sent).toHaveLength(16);
    client.middlewareStack.remove('recordShared');
  });

  it('sends each command with its own input, also concurrently', async () => {
    const client = dynamoDocumentClient();
    const keys = Array.from({ length: 20 }, (_, index) => ({ pk: 'many', sk: String(index) }));
    await Promise.all(
      keys.map((key) => client.send(new PutCommand({ TableName, Item: { ...key, index: Number(key.sk) } }))),
    );
    const read = await Promise.all(
      keys.map((key) => client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }))),
    );
    expect(read.map((output) => output.Item)).toEqual(keys.map((key) => ({ ...key, index: Number(key.sk) })));
  });

  it('applies middleware added to its stack after requests were sent, until it is removed', async () => {
    const client = dynamoDocumentClient();
    const get = () => client.send(new GetCommand({ TableName, Key: { pk: 'p', sk: '1' } }));
    await get();
    const seen: string[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        seen.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    await get();
    await get();
    client.middlewareStack.remove('countRequests');
    await get();
    expect(seen).toEqual(['GetItemCommand', 'GetItemCommand']);
  });

  it('signs requests as a signer the SDK makes for the request signs them', async () => {
    const unsigned = () => ({
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 8000,
      path: '/',
      query: {},
      headers: {
        host: '127.0.0.1:8000',
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
      },
      body: '{"TableName":"t"}',
    });
    const signingDate = new Date('2026-01-02T03:04:05Z');
    const fresh = await new DynamoDBClient({}).config.signer();
    const expected = (await fresh.sign(unsigned(), { signingDate })).headers;
    const shared = dynamoDocumentClient().config;
    for (const attempt of [1, 2]) {
      const signed = await (await shared.signer()).sign(unsigned(), { signingDate });
      expect(signed.headers, `attempt ${attempt}`).toEqual(expected);
    }
    expect(expected.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=x\/20260102\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/,
    );
  });

  it('sends base commands and commands with options the ordinary way', async () => {
    const client = dynamoDocumentClient();
    const base = await client.send(
      new GetItemCommand({ TableName, Key: { pk: { S: 'p' }, sk: { S: '1' } }, ConsistentRead: true }),
    );
    expect(base.Item?.text).toEqual({ S: 'value of p/1' });
    const withOptions = await client.send(new GetCommand({ TableName, Key: { pk: 'p', sk: '1' } }), {
      abortSignal: new AbortController().signal,
    });
    expect(withOptions.Item?.text).toBe('value of p/1');
  });
});
