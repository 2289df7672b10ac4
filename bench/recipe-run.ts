/**
 * Recipe run throughput (issue 10): a join + group-by recipe over a large table and a 10k-row
 * table, run on full data through the whole service, next to the same work done by a bare
 * script and by DuckDB alone, in the same run.
 *
 * - pipeline: the twin in a child process (bench/import-twin-process.ts); both tables imported
 *   through the API first (not timed); then two runs on full data, each timed from POST
 *   .../nodes/{id}/execute:
 *   - until the run's completion as the service records it (execution.ended_date, stamped as
 *     the completion write goes out, about 3 ms before a poll could read it), read by a GET
 *     .../run-status every 100 ms: the pipeline's own time, which the target is judged on;
 *   - until a GET every 25 ms reads the run COMPLETED: what an eager client sees. On the
 *     one-process twin each of those polls takes CPU (HTTP, two DynamoDB calls on the local
 *     store) from the run it watches; in AWS they are other Lambdas' work.
 *   And a run on samples, whose target is COMPLETED read within a second end to end.
 * - bare: a script with nothing of ours around it – S3 GetObject of the two data versions'
 *   Parquet from the twin's data bucket to local files, the recipe's SQL in DuckDB over them
 *   COPY'd to Parquet, S3 PutObject of the result back.
 * - duckdb: the same query and COPY on the local files, nothing else.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { VERSION_FILES, versionPrefix } from '../shared/data-tables/storage';
import type { ApiClient } from '../test/support/api-client';
import { ensureCsv } from './bench-csv';
import { median } from './import-throughput';
import { SOURCE_BUCKET, now, type ImportProfile } from './import-protocol';
import {
  ask,
  createdId,
  HTTP_MS,
  sleep,
  tableOverSource,
  TRANSFER_MS,
  upload,
  withImportTwin,
  withTimeout,
} from './import-twin';
import { BareTimes, recipeSql, type BareRound } from './recipe-bare';
import { engineProcessStartOf, recipePhaseLines, recipePhasesOf, type RecipePhases } from './recipe-run-phases';
import { childrenPeakRssMb } from './scale-memory';

export interface RecipeRunSettings {
  /** Rows of the large table (the bench CSV). */
  readonly rows: number;
  /** Rows of the small table it is joined with. */
  readonly smallRows: number;
  readonly runs: number;
  /** Rounds run first and discarded (1 unless set). */
  readonly warmupRounds?: number;
  /** Whether each round also times a full run read by eager polls (yes unless set): a third full run per round. */
  readonly eagerReads?: boolean;
}

export interface RecipeRunReport {
  readonly settings: RecipeRunSettings;
  /** Rows the recipe's output has (every side checks it gives as many). */
  readonly outputRows: number;
  /** POST → the completion the service recorded (ended_date), polled every 100 ms. */
  readonly pipelineMs: readonly number[];
  /** POST → a poll every 25 ms reads COMPLETED. */
  readonly pipelineReadMs: readonly number[];
  readonly sampleMs: readonly number[];
  readonly bareMs: readonly number[];
  /** The bare script's stages, round by round. */
  readonly bareStages: readonly BareTimes['stages'][];
  readonly duckDbMs: readonly number[];
  /** Where each full run's time went (recipe-run-phases.ts); null where the twin's spans were incomplete. */
  readonly pipelinePhases: readonly (RecipePhases | null)[];
  /** The twin's first engine process's start (fork → ready), paid by an untimed run on samples before the rounds. */
  readonly engineProcessStartMs: number | undefined;
  /** Peak resident memory of the twin's engine processes (the runs' DuckDB), MB; undefined where /proc is not there. */
  readonly enginePeakRssMb: number | undefined;
}

const SEGMENTS = ['consumer', 'corporate', 'home office', 'small business', 'public sector'];
const RUN_MS = 600_000;
/** Polls of the run whose COMPLETED is read as it lands (the eager client, the sample run). */
const EAGER_POLL_MS = 25;
/** Polls of the run timed by its recorded completion: few, so that they take little from it. */
const SPARSE_POLL_MS = 100;
/**
 * Pause before each measured side: what the previous side left running (a job's last writes
 * and clean-up, disk write-back of its files) would otherwise fall on the next one's time.
 */
const SETTLE_MS = 300;

async function customersCsv(path: string, rows: number): Promise<void> {
  const lines = ['id,segment,region'];
  for (let id = 1; id <= rows; id++) lines.push(`${id},${SEGMENTS[id % SEGMENTS.length]},region ${id % 37}`);
  await writeFile(path, `${lines.join('\n')}\n`);
}

/** Imports a table's source through the API and waits for its version to be COMPLETED. */
async function importedVersion(api: ApiClient, tableId: number): Promise<number> {
  const started = await withTimeout(
    api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } }),
    HTTP_MS,
    'batchCreateDataVersions',
  );
  const versionNumber = started.body.results[0]?.data_version?.version_number;
  if (started.status !== 202 || versionNumber === undefined)
    throw new Error(`batch-create: ${started.status} ${started.text}`);
  const deadline = now() + RUN_MS;
  for (;;) {
    const { execution } = (
      await withTimeout(
        api.call('getDataVersion', { params: { data_table_id: tableId, version_number: versionNumber } }),
        HTTP_MS,
        'getDataVersion',
      )
    ).body;
    if (execution.status === 'COMPLETED') return versionNumber;
    if (execution.status === 'FAILED' || execution.status === 'ABORTED' || now() > deadline)
      throw new Error(`import of table ${tableId}: ${execution.status} ${JSON.stringify(execution.error)}`);
    await sleep(100);
  }
}

interface Graph {
  readonly datasetId: number;
  readonly nodeId: number;
}

async function recipeGraph(
  api: ApiClient,
  tables: { orders: number; customers: number },
  smallRows: number,
): Promise<Graph> {
  const recipeId = await createdId(
    'createRecipe',
    api.call('createRecipe', {
      body: {
        name: 'bench join and totals',
        aliases: ['orders', 'customers'],
        recipe_version: { code: recipeSql(smallRows) },
      },
    }),
  );
  const datasetId = await createdId('createDataset', api.call('createDataset', { body: { name: 'bench recipe run' } }));
  const params = { dataset_id: datasetId, version_number: 1 };
  const table = (tableId: number) =>
    createdId(
      'addDatasetNode',
      api.call('addDatasetNode', {
        params,
        body: { node_type: 'TABLE', dataset_id: datasetId, data_table_id: tableId },
      }),
    );
  const [orders, customers] = [await table(tables.orders), await table(tables.customers)];
  const nodeId = await createdId(
    'addDatasetNode',
    api.call('addDatasetNode', {
      params,
      body: {
        node_type: 'RECIPE',
        dataset_id: datasetId,
        recipe_id: recipeId,
        recipe_version_number: 1,
        source_node_definitions: [
          { source_node_id: orders, alias: 'orders' },
          { source_node_id: customers, alias: 'customers' },
        ],
      },
    }),
  );
  return { datasetId, nodeId };
}

interface PipelineRun {
  /** When the POST went out (epoch ms, as the twin's spans). */
  readonly postedAt: number;
  /** What the twin did from just before the POST until the worker returned, when the run was watched. */
  readonly profile?: ImportProfile;
  /** POST → the poll that read COMPLETED. */
  readonly readMs: number;
  /** POST → the completion the service recorded (execution.ended_date, whole milliseconds). */
  readonly recordedMs: number;
  readonly rows: number;
}

/**
 * POST execute, then a poll every `pollMs` until one reads COMPLETED: both times, and the output's row count;
 * with `watched`, the twin process's profile of the run too (reset just before the POST).
 */
async function pipelineRun(
  api: ApiClient,
  graph: Graph,
  useSample: boolean,
  pollMs: number,
  watched?: ChildProcess,
): Promise<PipelineRun> {
  const params = { dataset_id: graph.datasetId, version_number: 1, node_id: graph.nodeId };
  if (watched) await ask(watched, { type: 'reset' }, 'reset-done');
  const postedAt = now();
  // The wall clock, as the twin's ended_date is (same machine); now() runs on a monotonic clock from the process's start.
  const postedWall = Date.now();
  const started = await withTimeout(
    api.call('executeDatasetNode', { params, body: { use_sample: useSample } }),
    HTTP_MS,
    'executeDatasetNode',
  );
  if (started.status !== 202) throw new Error(`execute: ${started.status} ${started.text}`);
  const jobId = started.body.execution?.job_id;
  if (jobId === undefined) throw new Error(`execute answered no job: ${started.text}`);
  for (;;) {
    const pollStart = now();
    const status = (
      await withTimeout(api.call('getDatasetNodeRunStatus', { params }), HTTP_MS, 'getDatasetNodeRunStatus')
    ).body;
    const execution = status.execution?.job_id === jobId ? status.execution : null;
    if (execution?.status === 'COMPLETED') {
      const readMs = now() - postedAt;
      if (!execution.ended_date) throw new Error('a COMPLETED run without ended_date');
      return {
        postedAt,
        profile: watched ? await ask(watched, { type: 'profile' }, 'profile') : undefined,
        readMs,
        recordedMs: Date.parse(execution.ended_date) - postedWall,
        rows: status.metadata?.row_count ?? -1,
      };
    }
    if (execution?.status === 'FAILED' || execution?.status === 'ABORTED')
      throw new Error(`recipe run ${execution.status}: ${JSON.stringify(execution.error)}`);
    if (now() - postedAt > RUN_MS)
      throw new Error(`recipe run still ${execution?.status ?? 'not started'} after ${RUN_MS / 1000} s`);
    await sleep(Math.max(0, pollStart + pollMs - now()));
  }
}

const execFileAsync = promisify(execFile);
const BARE_SCRIPT = fileURLToPath(new URL('./recipe-bare.ts', import.meta.url));

/** One round of the bare script, in a process of its own (recipe-bare.ts says why). */
async function bareRound(round: BareRound): Promise<BareTimes> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', BARE_SCRIPT, JSON.stringify(round)], {
    timeout: TRANSFER_MS,
    maxBuffer: 2 ** 20,
  });
  return BareTimes.parse(JSON.parse(stdout));
}

export async function measureRecipeRun(settings: RecipeRunSettings): Promise<RecipeRunReport> {
  const orders = await ensureCsv(settings.rows);
  return withImportTwin('dps-bench-recipe-', async ({ child, dir, s3, api, ready }) => {
    const customersPath = join(dir, 'customers.csv');
    await customersCsv(customersPath, settings.smallRows);
    await upload(s3, SOURCE_BUCKET, 'orders/data.csv', orders.path, 'text/csv');
    await upload(s3, SOURCE_BUCKET, 'customers/data.csv', customersPath, 'text/csv');
    const tables = {
      orders: await tableOverSource(api, ready, 'orders', 'bench orders'),
      customers: await tableOverSource(api, ready, 'customers', 'bench customers'),
    };
    const versions = {
      orders: await importedVersion(api, tables.orders),
      customers: await importedVersion(api, tables.customers),
    };
    const graph = await recipeGraph(api, tables, settings.smallRows);
    const tenantId = ready.clientId.split('.')[0]!;
    const parquetKey = (table: keyof typeof tables) =>
      versionPrefix(tenantId, tables[table], versions[table]) + VERSION_FILES.data;

    const report = {
      pipelineMs: [] as number[],
      pipelineReadMs: [] as number[],
      sampleMs: [] as number[],
      bareMs: [] as number[],
      bareStages: [] as BareTimes['stages'][],
      duckDbMs: [] as number[],
      pipelinePhases: [] as (RecipePhases | null)[],
    };
    // Untimed, as the bare script's process start and DuckDB's native module are: the twin's first
    // engine process started, which a worker then keeps warm; its start is reported apart.
    const engineStart = await pipelineRun(api, graph, true, EAGER_POLL_MS, child);
    const engineProcessStartMs = engineStart.profile && engineProcessStartOf(engineStart.profile);
    let outputRows = -1;
    const warmup = settings.warmupRounds ?? 1;
    // Warm-up rounds, then the measured ones; the three sides alternate so drift hits them alike.
    for (let round = 0; round < warmup + settings.runs; round++) {
      await sleep(SETTLE_MS);
      const full = await pipelineRun(api, graph, false, SPARSE_POLL_MS, child);
      await sleep(SETTLE_MS);
      const eager = settings.eagerReads === false ? undefined : await pipelineRun(api, graph, false, EAGER_POLL_MS);
      await sleep(SETTLE_MS);
      const sample = await pipelineRun(api, graph, true, EAGER_POLL_MS);

      await sleep(SETTLE_MS);
      const bare = await bareRound({
        s3Endpoint: ready.s3Endpoint,
        dataBucket: ready.dataBucket,
        ordersKey: parquetKey('orders'),
        customersKey: parquetKey('customers'),
        outBucket: SOURCE_BUCKET,
        outKey: `bare/out-${round}.parquet`,
        dir,
        smallRows: settings.smallRows,
      });
      const { bareRows, duckDbRows: duckRows } = bare;
      if (full.rows !== bareRows || (eager && eager.rows !== bareRows) || bareRows !== duckRows)
        throw new Error(`output rows differ: pipeline ${full.rows}, bare ${bareRows}, DuckDB alone ${duckRows}`);
      outputRows = full.rows;
      if (round < warmup) continue;
      report.pipelineMs.push(full.recordedMs);
      if (eager) report.pipelineReadMs.push(eager.readMs);
      report.sampleMs.push(sample.readMs);
      report.bareMs.push(bare.bareMs);
      report.bareStages.push(bare.stages);
      const { postedAt, recordedMs, profile } = full;
      report.pipelinePhases.push((profile && recipePhasesOf(postedAt, recordedMs, profile, ready.dataBucket)) ?? null);
      report.duckDbMs.push(bare.duckDbMs);
    }
    // The engine processes stay warm after their runs, so their high-water marks are still there to read.
    return {
      settings,
      outputRows,
      ...report,
      engineProcessStartMs,
      enginePeakRssMb: await childrenPeakRssMb(child.pid),
    };
  });
}

/** Issue 10: the pipeline's full run at least this share of the bare script's throughput. */
export const RECIPE_RUN_TARGET = 0.8;
/** Issue 10: a sample run COMPLETED end to end within this many milliseconds. */
export const SAMPLE_RUN_TARGET_MS = 1000;

export function recipeRunRatio(report: RecipeRunReport): number {
  return median(report.bareMs) / median(report.pipelineMs);
}

export function recipeRunSection(report: RecipeRunReport): string[] {
  const { rows, smallRows } = report.settings;
  const inputRows = rows + smallRows;
  const ms0 = (value: number) => value.toFixed(0);
  const perSecond = (ms: number) => Math.round(inputRows / (ms / 1000)).toLocaleString('en-US');
  const line = (name: string, values: readonly number[]) =>
    `| ${name} | ${values.map(ms0).join(' | ')} | ${ms0(median(values))} | ${perSecond(median(values))} |`;
  const runs = report.pipelineMs.map((_, index) => `run ${index + 1}`);
  const eager = report.pipelineReadMs.length > 0;
  return [
    '## Recipe run: pipeline vs bare script vs DuckDB alone',
    '',
    `A join of ${rows.toLocaleString('en-US')} rows with ${smallRows.toLocaleString('en-US')} rows and a group-by (${report.outputRows} output rows), on full data; ${report.settings.warmupRounds ?? 1} warm-up round(s) not shown.`,
    '',
    `| side | ${runs.join(' | ')} | median ms | input rows/s |`,
    `|---|${runs.map(() => '--:|').join('')}--:|--:|`,
    line('pipeline (POST execute → COMPLETED recorded; polls every 100 ms)', report.pipelineMs),
    // Not timed when the rounds leave it out (eagerReads false: the 10M-row and smoke runs).
    ...(eager ? [line('pipeline (POST execute → COMPLETED read; polls every 25 ms)', report.pipelineReadMs)] : []),
    line('bare script (2 GETs, DuckDB query + COPY, PUT)', report.bareMs),
    line('DuckDB alone (query + COPY on local files)', report.duckDbMs),
    '',
    `- Pipeline (COMPLETED recorded) / bare script throughput: ${recipeRunRatio(report).toFixed(2)} (target ≥ ${RECIPE_RUN_TARGET.toFixed(2)}); ${eager ? `with COMPLETED read by polls every 25 ms: ${(median(report.bareMs) / median(report.pipelineReadMs)).toFixed(2)}; ` : ''}bare / DuckDB alone: ${(median(report.duckDbMs) / median(report.bareMs)).toFixed(2)}.`,
    `- A run on samples, POST execute → COMPLETED read: ${report.sampleMs.map(ms0).join(', ')} ms (median ${ms0(median(report.sampleMs))}; target < ${SAMPLE_RUN_TARGET_MS} ms).`,
    `- The twin's first engine process started in ${report.engineProcessStartMs === undefined ? '(not seen)' : ms0(report.engineProcessStartMs)} ms (fork → ready, from its bundle as the twin starts it), during an untimed run on samples before the rounds: the bare script's process start and DuckDB module load are untimed too.`,
    '',
    '### Where the full run goes (twin-side timestamps from the POST; bench/recipe-run-phases.ts)',
    '',
    ...recipePhaseLines(report.pipelinePhases, report.bareStages),
  ];
}
