/**
 * What the Fargate branch's tests (fargate.test.ts) share: the sizes and files they run jobs
 * over, polling, and the two ways of running a job (every job on Lambda, then on a task).
 */
import { expect } from 'vitest';
import type { S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import type { ApiClient, ApiResponse } from '../../support/api-client';
import { asBody, unchecked } from '../../support/api-client';
import { waitForDirectExport, waitForMultiPartExport } from '../../support/exports';
import { presignedUpload } from '../../support/multi-part';
import { pricingTarget, startTransferStack, type TransferStack } from '../transfers/fixtures';
import { putObjects } from '../../support/imports';
import type { TestTwin } from '../../support/harness';
import { startImport, waitForJob } from '../../support/imports';

export const NEVER = String(Number.MAX_SAFE_INTEGER);

export function bigCsv(rows: number): string {
  const lines = ['id,label,amount'];
  for (let id = 1; id <= rows; id += 1) lines.push(`${id},row-${id % 977},${(id * 13) % 1000}.25`);
  return `${lines.join('\n')}\n`;
}

/** True while a process of that id lives. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it answers a value, for at most `ms`. */
export async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a Fargate import of the big file and answers its version and its task's process once it runs. */
export async function runningBigImport(
  env: TestTwin,
  tableId: number,
): Promise<{ versionNumber: number; pid: number; scratch: string }> {
  process.env.FARGATE_ABOVE_BYTES = '0';
  const before = env.twin.ecs.tasks().length;
  const versionNumber = await startImport(env.admin, tableId);
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  const task = await until(
    async () => {
      const found = env.twin.ecs.tasks()[before];
      if (found?.pid === undefined) return undefined;
      const version = await env.admin.call('getDataVersion', {
        params: { data_table_id: tableId, version_number: versionNumber },
      });
      return version.body.execution.status === 'IN_PROGRESS' ? found : undefined;
    },
    30_000,
    'the import task running',
  );
  return { versionNumber, pid: task.pid!, scratch: task.scratch };
}

/** Exports a version through a new bucket target over `connectionId` writing to `exports/<folder>/`; answers the finished export. */
export async function exportToNewTarget(
  api: ApiClient,
  connectionId: number,
  folder: string,
  tableId: number,
  versionNumber: number,
) {
  const target = await api.call('createTarget', {
    body: asBody('createTarget', {
      name: folder,
      type: 'bucket',
      connection_id: connectionId,
      path: `exports/${folder}/`,
    }),
  });
  expect(target.status, target.text).toBe(201);
  const started = await api.call('createExport', {
    body: asBody('createExport', {
      target_id: target.body.id,
      source_type: 'datatable',
      source_id: tableId,
      source_version: versionNumber,
    }),
  });
  expect(started.status, started.text).toBe(202);
  return waitForJob(
    () => api.call('getExport', { params: { export_id: started.body.export_id } }),
    (body) => body.execution,
  );
}

/** Runs `start` with every job on Lambda, then with every job on Fargate. */
export async function bothPaths<T>(start: () => Promise<T>): Promise<{ lambda: T; fargate: T }> {
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  const lambda = await start();
  process.env.FARGATE_ABOVE_BYTES = '0';
  const fargate = await start();
  process.env.FARGATE_ABOVE_BYTES = NEVER;
  return { lambda, fargate };
}

/** Starts an engine job with `launch` as `client`; when accepted, waits for its end. */
export type EngineJobStart = (client: ApiClient, launch: unknown) => Promise<ApiResponse<unknown>>;

/** What the launch rule's test starts its jobs over: a stored version, and connections for an export and a transfer. */
export interface EngineJobSources {
  readonly api: ApiClient;
  readonly env: TestTwin;
  readonly tableId: number;
  readonly versionNumber: number;
  readonly bucketConnection: number;
  readonly pricingConnection: number;
  readonly s3: S3Client;
}

/** Each start route of an engine job, by worker name. */
export function engineJobStarts({
  api,
  env,
  tableId,
  versionNumber,
  bucketConnection,
  pricingConnection,
  s3,
}: EngineJobSources): Record<string, EngineJobStart> {
  const source = { source_type: 'datatable', source_id: tableId, source_version: versionNumber } as const;
  let run = 0;
  /** Each start route of an engine job: it starts the job with `launch` and, when accepted, waits for its end. */
  const starts: Record<string, EngineJobStart> = {
    'export-direct': async (client, launch) => {
      const started = await client.call('startDirectExport', {
        body: unchecked({
          ...source,
          bucket: 'exports',
          key: `forced/${(run += 1)}.parquet`,
          endpoint: env.twin.s3.endpoint,
          access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
          launch,
        }),
      });
      if (started.status === 202) await waitForDirectExport(api, started.body.job_id);
      return started;
    },
    'export-multi-part': async (client, launch) => {
      const { urls } = await presignedUpload(s3, 'uploads', `forced/${(run += 1)}.parquet`, 1);
      const started = await client.call('startMultiPartExport', {
        body: unchecked({ ...source, parts_urls: urls, launch }),
      });
      if (started.status === 202) await waitForMultiPartExport(api, started.body.job_id);
      return started;
    },
    'export-to-target': async (client, launch) => {
      const target = await api.call('createTarget', {
        body: asBody('createTarget', {
          name: `forced-${(run += 1)}`,
          type: 'bucket',
          connection_id: bucketConnection,
          path: `exports/forced-${run}/`,
        }),
      });
      const started = await client.call('createExport', {
        body: unchecked({ target_id: target.body.id, ...source, launch }),
      });
      if (started.status === 202)
        await waitForJob(
          () => api.call('getExport', { params: { export_id: started.body.export_id } }),
          (body) => body.execution,
        );
      return started;
    },
    'transfer-to-pricing': async (client, launch) => {
      const target = await pricingTarget(api, pricingConnection);
      const started = await client.call('startTransfer', {
        body: unchecked({ target_id: target.id, ...source, launch }),
      });
      if (started.status === 202)
        await waitForJob(
          () => api.call('getTransfer', { params: { transfer_id: started.body.transfer_id } }),
          (body) => body.execution,
        );
      return started;
    },
    'analyse-schema': async (client, launch) => {
      const params = { data_table_id: tableId, version_number: versionNumber };
      const started = await client.call('analyseDataVersionSchema', {
        params,
        body: unchecked({ depth: 'SHALLOW', launch }),
      });
      if (started.status === 202)
        await waitForJob(
          () => api.call('getSchemaAnalysisStatus', { params }),
          (body) => body.execution,
        );
      return started;
    },
    // Refused before the node is looked for: no node is needed to see the rule.
    'analyse-node-schema': (client, launch) =>
      client.call('analyseDatasetNodeSchema', {
        params: { dataset_id: 999_999, version_number: 1, node_id: 1 },
        body: unchecked({ depth: 'SHALLOW', launch }),
      }),
  };
  return starts;
}

/** A small CSV every job kind can read. */
export const PEOPLE_CSV = 'id,name,score\n1,ada,3.5\n2,grace,4.25\n3,linus,\n';

/**
 * A twin that may reach the pricing system's fake, with transfers on, every job on Lambda until
 * a test says otherwise, and `files` in its `fargate-src` bucket. The pricing system is outside
 * the stage: its tasks reach it only where the stage says so (FARGATE_TASK_OUTBOUND).
 */
export async function startFargateStack(files: Readonly<Record<string, string | Uint8Array>>): Promise<TransferStack> {
  const stack = await startTransferStack({
    buckets: ['fargate-src', 'landing', 'exports', 'uploads'],
    fargateAboveBytes: Number(NEVER),
  });
  process.env.FARGATE_TASK_OUTBOUND = pricingHosts(stack);
  await putObjects(stack.env, 'fargate-src', files);
  return stack;
}

/** The pricing fake's host and token server, as FARGATE_TASK_OUTBOUND names them. */
export function pricingHosts(stack: TransferStack): string {
  return [stack.dim.host, stack.dim.tokenUrl].map((url) => `127.0.0.1:${new URL(url).port}`).join(',');
}

/** Closes what startFargateStack started. */
export async function closeFargateStack(stack: TransferStack | undefined): Promise<void> {
  delete process.env.FARGATE_TASK_OUTBOUND;
  await stack?.close();
}
