/**
 * Building blocks of the cancellation tests (cancel.test.ts): a twin whose functions reach S3
 * through a gate that holds a chosen read (a job's worker then waits on it, as on a slow
 * source), the checks that a cancelled job's worker stopped, and the tenant's CPU usage.
 */
import { readdir } from 'node:fs/promises';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { freeLocalPort } from '../../../infra/local/fakes/local-server';
import { keys } from '../../../shared/db/keys';
import { executionArnOf } from '../../../shared/jobs/cancel';
import type { StartableJob } from '../../../shared/resource-access';
import { usagePeriod } from '../../../shared/usage';
import type { ApiResponse } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { startS3Gate, type HeldRead, type S3Gate } from '../../support/s3-gate';

/** A cancelled job's worker sees its next heartbeat refused within this (2 s beats) and then stops. */
export const STOPS_WITHIN_MS = 8000;

export interface GatedTwin {
  readonly env: TestTwin;
  readonly gate: S3Gate;
  close(): Promise<void>;
}

/**
 * A twin whose functions reach S3 through a gate (user connections may name the gate too), with
 * an inactivity limit of 8 s: heartbeats every 2 s, so a cancelled worker learns of it quickly.
 */
export async function startGatedTwin(allowOutbound: readonly string[] = []): Promise<GatedTwin> {
  const s3Port = await freeLocalPort();
  const gate = await startS3Gate(`http://127.0.0.1:${s3Port}`);
  const env = await startTestTwin({
    s3Port,
    buckets: ['landing', 'exports'],
    allowOutbound: [new URL(gate.endpoint).host, ...allowOutbound],
    environment: { AWS_ENDPOINT_URL_S3: gate.endpoint, JOB_INACTIVITY_SECONDS: '8' },
  });
  return {
    env,
    gate,
    async close() {
      await env.close();
      await gate.close();
    },
  };
}

/** Polls `check` until it holds, for at most `ms`. */
export async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The cancelled job's worker stopped: it gave up the read it waited on, its scratch folder is
 * gone, and its execution in Step Functions was stopped (ABORTED, so no failure recorder ran).
 */
export async function expectStopped(env: TestTwin, held: HeldRead, job: StartableJob, jobId: string): Promise<void> {
  const started = Date.now();
  await Promise.race([
    held.abandoned,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error('the worker still waits on its read')), STOPS_WITHIN_MS),
    ),
  ]);
  await eventually(
    async () => !(await readdir(env.twin.scratchRoot)).some((name) => name.startsWith(`${jobId}-`)),
    STOPS_WITHIN_MS - (Date.now() - started),
    `scratch folder of ${jobId} removed`,
  );
  const sfn = new SFNClient({ endpoint: env.twin.endpoints.stepFunctions });
  try {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn: executionArnOf(job, jobId) }));
    expect(execution.status).toBe('ABORTED');
  } finally {
    sfn.destroy();
  }
}

/** The CPU seconds `tenantId` used today, as the usage table records them. */
export async function cpuSecondsToday(env: TestTwin, tenantId: string): Promise<number> {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.twin.dynamoEndpoint }));
  try {
    const key = keys.usage(tenantId, 'CPU_SECONDS', usagePeriod());
    const { Item } = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key }));
    return Number(Item?.value ?? 0);
  } finally {
    client.destroy();
  }
}

/** Two cancels sent together: both 200 with the same status, which they answer. */
export async function cancelTwice<T>(cancel: () => Promise<ApiResponse<T>>, statusOf: (body: T) => string): Promise<T> {
  const [first, second] = await Promise.all([cancel(), cancel()]);
  expect([first.status, second.status], `${first.text}\n${second.text}`).toEqual([200, 200]);
  expect(statusOf(first.body)).toBe('ABORTED');
  expect(statusOf(second.body)).toBe('ABORTED');
  return first.body;
}

/** A refusal of reading a cancelled job's output: 400 10-444. */
export function expectAborted(response: ApiResponse<unknown>): void {
  expect(response.status, response.text).toBe(400);
  expect(response.problem.code).toBe('10-444');
}
