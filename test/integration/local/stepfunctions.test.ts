import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import * as z from 'zod';
import { defineJob } from '../../../shared/jobs/define-job';
import { startTestTwin, type TestTwin } from '../../support/harness';

/** A worker as the ASL sees it: echo, fail once transiently, fail for good, or run long. */
const calls = new Map<string, number>();
async function echoWorker(input: unknown): Promise<unknown> {
  const { mode, key } = input as { mode: string; key: string };
  calls.set(key, (calls.get(key) ?? 0) + 1);
  if (mode === 'transient-once' && calls.get(key) === 1)
    throw Object.assign(new Error('try again'), { name: 'TransientError' });
  if (mode === 'fail') throw Object.assign(new Error('the input was bad'), { name: 'BadInput' });
  if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 10_000));
  return { echoed: input, attempts: calls.get(key) };
}

const echoJob = defineJob({
  name: 'echo',
  description: 'Fixture job of the local runner',
  params: z.unknown(),
  worker: { name: 'echo-worker', handler: 'unused', timeoutSeconds: 30, memoryMb: 128, access: {} },
  definitionFile: fileURLToPath(new URL('./fixtures/statemachines/echo.asl.json', import.meta.url)),
});

let env: TestTwin;
let sfn: SFNClient;
let machine: string;

beforeAll(async () => {
  env = await startTestTwin({
    jobs: [echoJob],
    loadWorker: async () => echoWorker,
  });
  // Functions learn machine ARNs from the environment, the endpoint from the SDK's own setting.
  machine = process.env.ECHO_STATE_MACHINE_ARN!;
  sfn = new SFNClient({});
});
afterAll(async () => {
  sfn?.destroy();
  await env?.close();
});

async function run(input: Record<string, unknown>): Promise<DescribeExecutionCommandOutput> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: machine, input: JSON.stringify(input) }),
  );
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('execution did not finish');
}

describe('local Step Functions', () => {
  it('publishes each machine of the folder by name', () => {
    expect(machine).toBe('arn:aws:states:us-east-1:000000000000:stateMachine:echo');
  });

  it('runs the ASL with the worker and returns its output', async () => {
    const execution = await run({ mode: 'echo', key: 'a' });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({ echoed: { mode: 'echo', key: 'a' }, attempts: 1 });
  });

  it('retries a transient error as the Retry field says', async () => {
    const execution = await run({ mode: 'transient-once', key: 'b' });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!).attempts).toBe(2);
  });

  it('catches a failure and ends FAILED with the error and cause', async () => {
    const execution = await run({ mode: 'fail', key: 'c' });
    expect(execution).toMatchObject({ status: 'FAILED', error: 'BadInput', cause: 'the input was bad' });
  });

  it('stops a running execution', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ mode: 'slow', key: 'd' }) }),
    );
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'Cancelled', cause: 'by the test' }));
    expect(await sfn.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({
      status: 'ABORTED',
      error: 'Cancelled',
    });
  });

  it('refuses an unknown machine and a reused execution name', async () => {
    await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: `${machine}-missing` }))).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
    });
    await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, name: 'once', input: '{"mode":"echo","key":"e"}' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(
      sfn.send(
        new StartExecutionCommand({ stateMachineArn: machine, name: 'once', input: '{"mode":"echo","key":"f"}' }),
      ),
    ).rejects.toMatchObject({
      name: 'ExecutionAlreadyExists',
    });
  });
});
