import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transactWrite, type TransactItem } from '../../../shared/db/transactions';
import { AppError } from '../../../shared/errors/app-error';

/**
 * What DynamoDB does and the local stand-in cannot: it cancels a transaction whose items
 * another transaction is writing at that moment (TransactionConflict). The store's
 * transactions must take that as a conflict, never as a server error. A small server speaks
 * DynamoDB's JSON protocol to the real SDK client and answers each TransactWriteItems with the
 * next scripted answer.
 */
let server: Server;
let script: { status: number; body: object }[] = [];
let calls = 0;

const cancelled = (...codes: string[]) => ({
  status: 400,
  body: {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message: 'Transaction cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
  },
});
const committed = { status: 200, body: {} };

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      calls += 1;
      const answer = script.shift() ?? committed;
      response
        .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  calls = 0;
});

const ITEMS: TransactItem[] = [
  { ConditionCheck: { TableName: 't', Key: { pk: 'a', sk: 'b' }, ConditionExpression: 'attribute_exists(pk)' } },
];

describe('transactWrite', () => {
  it('tries again after a TransactionConflict and commits', async () => {
    script = [cancelled('TransactionConflict', 'None'), committed];
    await expect(transactWrite(ITEMS)).resolves.toEqual({ committed: true });
    expect(calls).toBe(2);
  });

  it('answers 10-1006 (409) when the conflict lasts, after a bounded number of attempts', async () => {
    script = Array.from({ length: 10 }, () => cancelled('None', 'TransactionConflict'));
    const failure = await transactWrite(ITEMS).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: '10-1006', status: 409 });
    expect(calls).toBe(4);
  });

  it('returns a failed condition as the outcome, even beside a conflict, without trying again', async () => {
    script = [cancelled('TransactionConflict', 'ConditionalCheckFailed')];
    const outcome = await transactWrite(ITEMS);
    expect(outcome).toMatchObject({
      committed: false,
      reasons: [{ code: 'TransactionConflict' }, { code: 'ConditionalCheckFailed' }],
    });
    expect(calls).toBe(1);
  });

  it('rethrows any other cancellation as it came', async () => {
    script = [cancelled('ValidationError')];
    await expect(transactWrite(ITEMS)).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(calls).toBe(1);
  });
});
