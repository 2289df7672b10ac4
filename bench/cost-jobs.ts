/**
 * `npm run bench -- cost-jobs`: what each job kind's worker costs, per 1M rows. The twin runs in a child process
 * (bench/cost-jobs-twin-process.ts) and hands every worker invocation to this process, where the worker runs with
 * the real SDK clients on the twin's stores, counted by the cost bench's meter (bench/cost-meter.ts) and timed by
 * this process's CPU clock. One run of each job at BENCH_COST_JOB_ROWS rows (200000): import (with what it chains),
 * a recipe run (SELECT * over the table), a FULL schema analysis of the data version and of the recipe node, a
 * multi-part export and a direct export of its output.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { jobs, workersOf } from '../functions/jobs';
import { loadWorkerHandler } from '../infra/local/stepfunctions';
import { logger } from '../shared/log';
import { ensureCsv } from './bench-csv';
import type { CostJobsChildMessage, CostJobsParentMessage } from './cost-jobs-protocol';
import { dynamoCalls, installMeter, type CallTally } from './cost-meter';
import { PRICES } from './cost-report';
import { SOURCE_BUCKET } from './import-protocol';
import { HTTP_MS, LOCAL_S3_CREDENTIALS, tableOverSource, upload, withImportTwin, withTimeout } from './import-twin';
import { pipelineRun, poll, releasedDataset } from './multipart-export';

/** One worker's invocations over the bench, added up. */
export interface WorkerCost {
  readonly worker: string;
  readonly job: string;
  readonly invocations: number;
  /** This process's CPU while the worker's invocations ran (the engine child's, where a job has one, is apart). */
  readonly cpuSeconds: number;
  /** What the job recorded itself (the recipe run's cpu_seconds: its process and its engine child's), where read. */
  readonly recordedCpuSeconds?: number;
  readonly tally: CallTally;
  /** Whether the cost grows with the rows (scaled to 1M) or is fixed per job. */
  readonly perRow: boolean;
}

const JOB_OF_WORKER = new Map(jobs.map((job) => [job.worker.name, job.name] as const));
const WORKERS = new Map(workersOf(jobs).map((worker) => [worker.name, worker] as const));

/** Calls the twin's own HTTP API or anything not AWS (the bench's polls): not the worker's. */
function awsOnly(tally: CallTally): CallTally {
  return {
    ...tally,
    calls: Object.fromEntries(Object.entries(tally.calls).filter(([name]) => !name.startsWith('other'))),
  };
}

function addTallies(a: CallTally, b: CallTally): CallTally {
  const calls: Record<string, number> = { ...a.calls };
  for (const [name, count] of Object.entries(b.calls)) calls[name] = (calls[name] ?? 0) + count;
  return { calls, readUnits: a.readUnits + b.readUnits, writeUnits: a.writeUnits + b.writeUnits };
}

/**
 * Runs the twin's worker invocations in this process. Costs are taken while one worker is in flight, from the first
 * invocation in to the last out; invocations of another worker overlapping that window are counted under the first.
 */
function serveWorkers(child: ChildProcess, meter: ReturnType<typeof installMeter>) {
  const costs = new Map<string, { invocations: number; cpuSeconds: number; recorded?: number; tally: CallTally }>();
  let inFlight = 0;
  let owner = '';
  let cpuStart = process.cpuUsage();
  const waiters: { worker: string; resolve: () => void }[] = [];
  const answer = (message: CostJobsParentMessage) => child.send(message);
  child.on('message', (received: CostJobsChildMessage) => {
    if (received.type !== 'invoke') return;
    const spec = WORKERS.get(received.worker);
    if (!spec) return answer({ type: 'invoked', id: received.id, error: { name: 'Error', message: 'unknown worker' } });
    if (inFlight === 0) {
      meter.take();
      owner = received.worker;
      cpuStart = process.cpuUsage();
    }
    inFlight += 1;
    const settle = (output: unknown, error?: Error) => {
      inFlight -= 1;
      const cost = costs.get(owner) ?? {
        invocations: 0,
        cpuSeconds: 0,
        tally: { calls: {}, readUnits: 0, writeUnits: 0 },
      };
      cost.invocations += 1;
      if (inFlight === 0) {
        const used = process.cpuUsage(cpuStart);
        cost.cpuSeconds += (used.user + used.system) / 1e6;
        cost.tally = addTallies(cost.tally, awsOnly(meter.take()));
      }
      costs.set(owner, cost);
      if (inFlight === 0)
        for (const waiter of waiters
          .splice(0)
          .filter((waiting) => [owner, received.worker, IDLE].includes(waiting.worker)))
          waiter.resolve();
      answer(
        error
          ? { type: 'invoked', id: received.id, error: { name: error.name, message: error.message } }
          : { type: 'invoked', id: received.id, output },
      );
    };
    loadWorkerHandler(spec)
      .then((handler) => handler(received.input, { awsRequestId: received.awsRequestId }))
      .then(
        (output) => settle(output),
        (error: unknown) => settle(undefined, error instanceof Error ? error : new Error(String(error))),
      );
  });
  /** Resolves once an invocation of `worker` has settled and nothing else runs (a job without a status route to poll). */
  const settled = (worker: string) => new Promise<void>((resolve) => waiters.push({ worker, resolve }));
  /** Resolves once no invocation runs: a job reads COMPLETED a moment before its worker returns. */
  const idle = () => (inFlight === 0 ? Promise.resolve() : settled(IDLE));
  return {
    costs,
    settled,
    idle,
    recordCpu: (worker: string, seconds: number) => {
      const cost = costs.get(worker);
      if (cost) cost.recorded = (cost.recorded ?? 0) + seconds;
    },
  };
}

/** A waiter for the end of any invocation. */
const IDLE = '*';

/** Workers whose work does not grow with the rows. */
const FIXED_WORKERS = new Set(['provision-app', 'deprovision-app']);

/** Runs the job chain once at `rows` rows; answers each worker's cost. */
export async function measureJobCosts(rows: number): Promise<WorkerCost[]> {
  const csv = await ensureCsv(rows);
  return withImportTwin(
    'dps-bench-cost-jobs-',
    async ({ child, s3, api, ready }) => {
      child.send({ type: 'environment' } satisfies CostJobsParentMessage);
      const environment = await new Promise<CostJobsChildMessage & { type: 'environment' }>((resolve) => {
        const listener = (received: CostJobsChildMessage) => {
          if (received.type !== 'environment') return;
          child.off('message', listener);
          resolve(received);
        };
        child.on('message', listener);
      });
      Object.assign(process.env, environment.environment);
      logger.setLogLevel('SILENT');
      const { costs, settled, idle, recordCpu } = serveWorkers(child, installMeter(environment.s3Port));
      await upload(s3, SOURCE_BUCKET, 'orders/data.csv', csv.path, 'text/csv');
      const tableId = await tableOverSource(api, ready, 'orders', 'bench orders');
      const { datasetId, nodeId } = await releasedDataset(api, tableId);
      const node = { dataset_id: datasetId, version_number: 1, node_id: nodeId };
      // The run's own record of its CPU, the engine child's included (this process's clock does not see a child).
      const run = await api.call('getDatasetNodeRunStatus', { params: node });
      if (run.body.metadata) recordCpu('run-recipe', run.body.metadata.cpu_seconds);
      await idle();
      const tableAnalysis = settled('analyse-schema');
      const version = { data_table_id: tableId, version_number: 1 };
      const started = await api.call('analyseDataVersionSchema', { params: version, body: { depth: 'FULL' } });
      if (started.status !== 202) throw new Error(`schema analysis: ${started.status} ${started.text}`);
      await withTimeout(tableAnalysis, 120_000, 'schema analysis');
      const nodeAnalysis = settled('analyse-node-schema');
      const analysed = await api.call('analyseDatasetNodeSchema', { params: node, body: { depth: 'FULL' } });
      if (analysed.status !== 202) throw new Error(`node analysis: ${analysed.status} ${analysed.text}`);
      await withTimeout(nodeAnalysis, 120_000, 'node schema analysis');
      // Two parts: every part but the last holds at least 5 MiB, and 200k rows are about 14 MB of CSV.
      await idle();
      await pipelineRun(api, s3, datasetId, 'exports/multi.csv', 2);
      await idle();
      const direct = await withTimeout(
        api.call('startDirectExport', {
          body: {
            source_type: 'dataset',
            source_id: datasetId,
            source_version: 1,
            bucket: SOURCE_BUCKET,
            key: 'exports/direct.parquet',
            endpoint: ready.s3Endpoint,
            access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
            secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
            total_files: 1,
          },
        }),
        HTTP_MS,
        'startDirectExport',
      );
      if (direct.status !== 202) throw new Error(`direct export: ${direct.status} ${direct.text}`);
      await poll(
        'direct export',
        async () => (await api.call('getDirectExport', { params: { job_id: direct.body.job_id } })).body,
        (job) => job.status.status === 'COMPLETED',
        (job) => (job.status.status === 'FAILED' ? JSON.stringify(job.status) : undefined),
      );
      await idle();
      return [...costs].map(([worker, cost]) => ({
        worker,
        job: JOB_OF_WORKER.get(worker) ?? worker,
        invocations: cost.invocations,
        cpuSeconds: cost.cpuSeconds,
        ...(cost.recorded === undefined ? {} : { recordedCpuSeconds: cost.recorded }),
        tally: cost.tally,
        perRow: !FIXED_WORKERS.has(worker),
      }));
    },
    new URL('./cost-jobs-twin-process.ts', import.meta.url),
  );
}

/** S3 requests by operation ("S3 PUT ×3"), and the rest of the calls. */
function callsText(tally: CallTally, scale: number): string {
  const names = Object.entries(tally.calls).sort(([a], [b]) => a.localeCompare(b));
  return names.length === 0 ? '–' : names.map(([name, calls]) => `${name} ×${+(calls * scale).toFixed(1)}`).join(', ');
}

/** $ of the calls and capacity (not the Lambda time, which depends on the memory size chosen). */
function storeUsd(tally: CallTally): number {
  const s3 = Object.entries(tally.calls).filter(([name]) => name.startsWith('S3 '));
  const s3Writes = s3.filter(([name]) => /^S3 (PUT|POST|COPY|DELETE)/.test(name)).reduce((sum, [, n]) => sum + n, 0);
  const s3Reads = s3.reduce((sum, [, n]) => sum + n, 0) - s3Writes;
  return (
    tally.readUnits * PRICES.dynamoReadUnit +
    tally.writeUnits * PRICES.dynamoWriteUnit +
    s3Writes * PRICES.s3WriteOrList +
    s3Reads * PRICES.s3Read
  );
}

/** The markdown section and the JSON; rows sorted by CPU per 1M rows, the largest cost. */
export async function jobCostSection(rows: number, jsonFile: string): Promise<string[]> {
  const costs = await measureJobCosts(rows);
  const perMillion = (cost: WorkerCost) => (cost.perRow ? 1e6 / rows : 1);
  const sorted = [...costs].sort((a, b) => b.cpuSeconds * perMillion(b) - a.cpuSeconds * perMillion(a));
  await mkdir(dirname(jsonFile), { recursive: true });
  await writeFile(
    jsonFile,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, rows, prices: PRICES, workers: sorted }, null, 2)}\n`,
  );
  const lines = [
    '## What a job costs (per 1M rows)',
    '',
    `One run of each job at ${rows} rows (the bench CSV), its worker invoked in the bench process with the SDK clients on the twin's stores (the twin in a child process), counted by the cost meter; figures × ${(1e6 / rows).toFixed(1)} to 1M rows unless fixed. CPU: the worker process's, while its invocations ran; recorded: the job's own cpu_seconds (its engine child's included) where its output says. Store $: DynamoDB capacity and S3 requests at list prices, without Lambda time. JSON in ${jsonFile}.`,
    '',
    '| job (worker) | invocations | CPU s / 1M | recorded CPU s / 1M | DynamoDB reads / writes | RCU / WCU | S3 and other calls / 1M | store $ / 1M rows |',
    '|---|--:|--:|--:|--:|--:|---|--:|',
  ];
  for (const cost of sorted) {
    const scale = perMillion(cost);
    const { reads, writes } = dynamoCalls(cost.tally);
    lines.push(
      `| ${cost.job} (${cost.worker})${cost.perRow ? '' : ' fixed'} | ${cost.invocations} | ${(cost.cpuSeconds * scale).toFixed(2)} | ${cost.recordedCpuSeconds === undefined ? '–' : (cost.recordedCpuSeconds * scale).toFixed(2)} | ${+(reads * scale).toFixed(1)} / ${+(writes * scale).toFixed(1)} | ${+(cost.tally.readUnits * scale).toFixed(1)} / ${+(cost.tally.writeUnits * scale).toFixed(1)} | ${callsText(cost.tally, scale)} | ${(storeUsd(cost.tally) * scale).toFixed(6)} |`,
    );
  }
  lines.push(
    '',
    'Not run here: the export to a target, the transfer and the app install/uninstall (fixed per job, no rows); DynamoDB calls of a job are mostly per job, not per row: scaled figures overstate them at 1M.',
  );
  return lines;
}
