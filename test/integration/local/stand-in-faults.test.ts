/**
 * The twin survives what a request can make its stand-ins see (issue 21, item 3): DynamoDB
 * input nested past DynamoDB's limit, keys and items over its sizes, Step Functions input and
 * results over 256 KiB, a worker that throws before it returns a promise, and many executions
 * at once each get the answer AWS would give, and the twin goes on answering every tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import * as z from 'zod';
import type { WorkerFunction } from '../../../infra/local/stepfunctions';
import { TABLE_NAME } from '../../../infra/local/twin';
import { defineJob } from '../../../shared/jobs/define-job';
import { startTestTwin, type TestTwin } from '../../support/harness';

/** A worker that echoes, throws before any promise exists, or returns more than a state may pass on. */
const worker: WorkerFunction = (input) => {
  const { mode } = input as { mode: string };
  if (mode === 'throw-at-once') throw new TypeError('thrown before a promise was made');
  if (mode === 'large-result') return Promise.resolve({ text: 'x'.repeat(300_000) });
  return Promise.resolve({ echoed: input });
};

const echoJob = defineJob({
  name: 'echo',
  description: 'Fixture job of the local runner',
  params: z.unknown(),
  worker: { name: 'echo-worker', handler: 'unused', timeoutSeconds: 30, memoryMb: 128, access: {} },
  definitionFile: fileURLToPath(new URL('./fixtures/statemachines/echo.asl.json', import.meta.url)),
});

let env: TestTwin;
let sfn: SFNClient;
let dynamo: DynamoDBDocumentClient;
let machine: string;

beforeAll(async () => {
  env = await startTestTwin({ jobs: [echoJob], loadWorker: async () => worker });
  machine = process.env.ECHO_STATE_MACHINE_ARN!;
  sfn = new SFNClient({ maxAttempts: 1 });
  dynamo = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: env.twin.dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    }),
  );
});
afterAll(async () => {
  sfn?.destroy();
  dynamo?.destroy();
  await env?.close();
});

/** The twin still serves a tenant: a listing answers 200. */
async function expectServing(): Promise<void> {
  expect((await env.admin.call('listConnections', { query: {} })).status).toBe(200);
}

async function finished(executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('execution did not finish');
}

const start = (input: string) => sfn.send(new StartExecutionCommand({ stateMachineArn: machine, input }));

/** `levels` nested lists around a number, as DynamoDB's JSON has them. */
function nestedList(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

describe('the local DynamoDB under hostile input', () => {
  const put = (item: Record<string, unknown>) => dynamo.send(new PutCommand({ TableName: TABLE_NAME, Item: item }));
  const key = { pk: 'T#faults', sk: 'ITEM#1' };

  it('refuses an attribute nested deeper than DynamoDB allows with its ValidationException, not a crash', async () => {
    // Sent raw: the SDK's own marshalling recurses too and would fail first on the client.
    const body = JSON.stringify({ TableName: TABLE_NAME, Item: { pk: { S: 'T#faults' }, sk: { S: 'deep' } } }).replace(
      '}}}',
      `}, "deep": ${'{"L":['.repeat(5000)}{"N":"1"}${']}'.repeat(5000)}}}`,
    );
    const response = await fetch(env.twin.dynamoEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.PutItem',
        authorization: 'AWS4-HMAC-SHA256 Credential=x/20250101/us-east-1/dynamodb/aws4_request',
      },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      __type: 'com.amazon.coral.validate#ValidationException',
      message: 'Nesting Levels have exceeded supported limits',
    });
    // 32 levels are DynamoDB's own bound, and are stored.
    await expect(put({ ...key, nested: nestedList(30) })).resolves.toBeDefined();
    await expectServing();
  });

  it('refuses an item over 400 KB and keys over 2048 and 1024 bytes with the ValidationException DynamoDB gives', async () => {
    await expect(put({ ...key, big: 'x'.repeat(410_000) })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('Item size has exceeded the maximum allowed size'),
    });
    await expect(put({ pk: 'p'.repeat(2049), sk: 'x' })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(put({ pk: 'T#faults', sk: 's'.repeat(1025) })).rejects.toMatchObject({ name: 'ValidationException' });
    await expectServing();
  });
});

describe('the local Step Functions under hostile input', () => {
  it('refuses an execution input over 256 KiB, or not JSON, as Step Functions does', async () => {
    await expect(start(JSON.stringify({ mode: 'echo', text: 'x'.repeat(262_144) }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(start('{"mode":')).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
    await expectServing();
  });

  it('fails the execution with States.DataLimitExceeded when a state returns over 256 KiB', async () => {
    const { executionArn } = await start('{"mode":"large-result"}');
    expect(await finished(executionArn!)).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    await expectServing();
  });

  it('fails the execution with the error of a worker that throws at once', async () => {
    const { executionArn } = await start('{"mode":"throw-at-once"}');
    expect(await finished(executionArn!)).toMatchObject({
      status: 'FAILED',
      error: 'TypeError',
      cause: 'thrown before a promise was made',
    });
    await expectServing();
  });

  it('runs 200 executions started at once to their end', async () => {
    const started = await Promise.all(
      Array.from({ length: 200 }, (_, index) => start(JSON.stringify({ mode: 'echo', index }))),
    );
    const ends = await Promise.all(started.map(({ executionArn }) => finished(executionArn!)));
    expect(ends.every((execution) => execution.status === 'SUCCEEDED')).toBe(true);
    await expectServing();
  });
});
