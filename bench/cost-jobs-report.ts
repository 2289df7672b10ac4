/** The job cost bench's (bench/cost-jobs.ts) markdown section and JSON file. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { measureJobCosts, unmeasuredJobs } from './cost-jobs';
import type { WorkerCost } from './cost-jobs-workers';
import { dynamoCalls, type CallTally } from './cost-meter';
import { PRICES } from './cost-report';

/** Calls by service and operation ("S3 PUT ×3"). */
function callsText(tally: CallTally, scale: number): string {
  const names = Object.entries(tally.calls).sort(([a], [b]) => a.localeCompare(b));
  return names.length === 0 ? '–' : names.map(([name, calls]) => `${name} ×${+(calls * scale).toFixed(1)}`).join(', ');
}

/** Calls of `service` ("S3", "KMS") in a tally. */
function callsOf(tally: CallTally, service: string): number {
  return Object.entries(tally.calls)
    .filter(([name]) => name.startsWith(`${service} `))
    .reduce((sum, [, calls]) => sum + calls, 0);
}

/** $ of the calls and capacity (not the Lambda time, which depends on the memory size chosen). */
function storeUsd(tally: CallTally): number {
  const s3Writes = Object.entries(tally.calls)
    .filter(([name]) => /^S3 (PUT|POST|COPY|DELETE)/.test(name))
    .reduce((sum, [, calls]) => sum + calls, 0);
  return (
    tally.readUnits * PRICES.dynamoReadUnit +
    tally.writeUnits * PRICES.dynamoWriteUnit +
    s3Writes * PRICES.s3WriteOrList +
    (callsOf(tally, 'S3') - s3Writes) * PRICES.s3Read +
    callsOf(tally, 'KMS') * PRICES.kmsRequest
  );
}

const number = (value: number) => String(+value.toFixed(1));

/**
 * The markdown section and the JSON: jobs that grow with the rows first, scaled to 1M rows and sorted by CPU, then
 * those fixed per job. Fails, before writing anything, when a declared job kind has no row.
 */
export async function jobCostSection(rows: number, jsonFile: string): Promise<string[]> {
  const costs = await measureJobCosts(rows);
  const missing = unmeasuredJobs(costs);
  if (missing.length > 0)
    throw new Error(
      `cost-jobs: no row for the declared job kind(s) ${missing.join(', ')}: give each a run in bench/cost-jobs.ts`,
    );
  const scaleOf = (cost: WorkerCost) => (cost.perRow ? 1e6 / rows : 1);
  const cpuOf = (cost: WorkerCost) => cost.processCpuSeconds + cost.engineChildCpuSeconds;
  const sorted = [...costs].sort(
    (a, b) => Number(a.perRow === false) - Number(b.perRow === false) || cpuOf(b) * scaleOf(b) - cpuOf(a) * scaleOf(a),
  );
  await mkdir(dirname(jsonFile), { recursive: true });
  const json = { generatedAt: new Date().toISOString(), node: process.version, rows, prices: PRICES, workers: sorted };
  await writeFile(jsonFile, `${JSON.stringify(json, null, 2)}\n`);
  const lines = [
    '## What a job costs (per 1M rows, or per job)',
    '',
    `One run of each declared job kind (functions/jobs.ts; the bench fails if one has no row) at ${rows} rows (the bench CSV): its worker invoked in the bench process with the SDK clients on the twin's stores (the twin, the S3 target bucket and the pricing DIM fake in a child process). Figures × ${(1e6 / rows).toFixed(1)} to 1M rows where "per" says 1M rows; app install and uninstall have no rows and are shown per job, unscaled.`,
    '',
    "- **CPU s**: user + system CPU from the worker's first invocation in to its last out: the bench process's (`process.cpuUsage`: the worker and, for every job but the recipe run, DuckDB in-process on its threads) plus that of the engine processes it forks (shared/engine/isolation/engine-process.ts; only the recipe run runs DuckDB there), read from /proc: running children's utime + stime and reaped ones' cutime + cstime (bench/process-tree-cpu.ts). **engine child**: that second part alone.",
    "- **recorded CPU s**: the job's own cpu_seconds from its status route (execution progress; the recipe run's run metadata, its engine child's included), a cross-check; – where the route does not show it.",
    "- **DynamoDB**, **S3**, **other calls**: every outbound SDK call of the worker (HTTP diagnostics channel) and the capacity units DynamoDB answered (ReturnConsumedCapacity TOTAL); the pricing system's HTTP calls are not AWS and not counted. **store $**: DynamoDB capacity, S3 and KMS requests at list prices, without Lambda time (which depends on the memory size).",
    '',
    '| job (worker) | per | invocations | CPU s | engine child CPU s | recorded CPU s | DynamoDB reads / writes | RCU / WCU | S3 requests | calls by operation | store $ |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|',
  ];
  for (const cost of sorted) {
    const scale = scaleOf(cost);
    const { reads, writes } = dynamoCalls(cost.tally);
    const recorded = cost.recordedCpuSeconds === undefined ? '–' : (cost.recordedCpuSeconds * scale).toFixed(2);
    lines.push(
      `| ${cost.job} (${cost.worker}) | ${cost.perRow ? '1M rows' : 'job'} | ${cost.invocations} | ${(cpuOf(cost) * scale).toFixed(2)} | ${(cost.engineChildCpuSeconds * scale).toFixed(2)} | ${recorded} | ${number(reads * scale)} / ${number(writes * scale)} | ${number(cost.tally.readUnits * scale)} / ${number(cost.tally.writeUnits * scale)} | ${number(callsOf(cost.tally, 'S3') * scale)} | ${callsText(cost.tally, scale)} | ${(storeUsd(cost.tally) * scale).toFixed(6)} |`,
    );
  }
  lines.push(
    '',
    "Every figure is one job in a fresh worker, as on a cold Lambda: the first invocation loads the worker's modules, and the recipe run's engine child CPU includes starting its engine process (Node, DuckDB's load and, here under tsx, compiling its TypeScript), paid once per warm worker; its recorded figure counts the engine's task, not its start. The engine process stays warm, idle, after the run: the few hundredths of a second of engine child CPU some later jobs show are its idling. Such fixed parts and a job's DynamoDB calls (its items, its heartbeat) do not grow with the rows: scaled to 1M rows they are overstated. The transfer's progress write per batch of 5,000 rows is the one DynamoDB write that does grow; its batches to the pricing system are HTTP, not AWS, and not counted.",
  );
  return lines;
}
