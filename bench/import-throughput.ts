/**
 * Import throughput: one large CSV imported through the whole service, next to the same work
 * done by a bare script and by DuckDB alone, in the same run.
 *
 * - pipeline: the twin in a child process (bench/import-twin-process.ts), the CSV in its S3;
 *   over HTTP as a client would: token, connection, data source, data table, then the time from
 *   POST /data-versions/batch-create until GET of the version (every 25 ms) reads COMPLETED.
 * - bare: a script with nothing of ours around it (bench/import-bare.ts) – S3 GetObject of the
 *   same object from the same s3rver streamed to a local file, DuckDB COPY of read_csv to
 *   Parquet, S3 PutObject of the Parquet file back to s3rver; then the same script with the
 *   import worker's engine settings, in this process and in the twin's.
 * - duckdb: the same COPY on the local file, nothing else.
 *
 * Runs alternate pipeline, the bare scripts, duckdb so drift affects them all alike. The CSV is
 * generated once (not timed) and kept under os.tmpdir(), keyed by row count; everything else
 * lives in a temporary folder removed at the end, the twin's own temporary files included
 * (its TMPDIR points there), even if the child had to be killed. The report on the runs (phases,
 * ratios, the markdown section) is bench/import-throughput-report.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../test/support/api-client';
import { bareImport, csvToParquet, SOURCE_KEY } from './import-bare';
import { ensureCsv } from './bench-csv';
import { SOURCE_BUCKET, now, type ImportProfile, type RunResult } from './import-protocol';
import { peakRssMb } from './scale-memory';
import { ask, HTTP_MS, sleep, tableOverSource, upload, withImportTwin, withTimeout } from './import-twin';

export interface ImportSettings {
  readonly rows: number;
  readonly runs: number;
  /** Wait between two polls of the version (25 ms unless set; a profiling knob). */
  readonly pollIntervalMs?: number;
  /** Rounds run first and discarded (1 unless set): the first import of a fresh twin also pays JIT warm-up. */
  readonly warmupRounds?: number;
}

export interface PipelineRun extends RunResult {
  readonly versionNumber: number;
  readonly polls: number;
  /** Distinct (status, stage, percent) the polls saw, at ms from the POST. */
  readonly seen: readonly {
    readonly atMs: number;
    readonly status: string;
    readonly stage: string;
    readonly percent: number;
  }[];
  /** What the twin process saw, with times made relative to the POST. */
  readonly profile: ImportProfile;
  readonly postedAt: number;
}

export interface ImportReport {
  readonly settings: ImportSettings;
  readonly csvPath: string;
  readonly csvBytes: number;
  readonly csvReused: boolean;
  readonly parquetBytes: number;
  readonly pipeline: readonly PipelineRun[];
  readonly bare: readonly RunResult[];
  /** The bare script with the import worker's engine settings, in the bench process. */
  readonly bareWorkerEngine: readonly RunResult[];
  /** The bare script with the import worker's engine settings, in the twin's process (beside s3rver, the stores and the API). */
  readonly bareInTwin: readonly RunResult[];
  readonly duckdb: readonly RunResult[];
  /** Peak resident memory of the twin process (API, stores, worker and its in-process DuckDB), MB; undefined without /proc. */
  readonly twinPeakRssMb: number | undefined;
}

/** The source CSV's folder (a data source's path) in SOURCE_BUCKET. */
const SOURCE_FOLDER = SOURCE_KEY.slice(0, SOURCE_KEY.lastIndexOf('/'));
/** Wait between two polls of the version unless the settings say otherwise. */
export const POLL_INTERVAL_MS = 25;

/** A data version's path parameters. */
interface VersionParams {
  readonly data_table_id: number;
  readonly version_number: number;
}

/** Bound of one whole import. */
const IMPORT_MS = 600_000;

/** One import through the API, from its POST to the poll that reads COMPLETED (the twin profiled meanwhile). */
export async function pipelineRun(
  api: ApiClient,
  child: ChildProcess,
  tableId: number,
  rows: number,
  pollIntervalMs: number,
): Promise<PipelineRun> {
  await ask(child, { type: 'reset' }, 'reset-done');
  const postedAt = now();
  const started = await withTimeout(
    api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } }),
    HTTP_MS,
    'batchCreateDataVersions',
  );
  const acceptedAt = now();
  const result = started.status === 202 ? started.body.results[0] : undefined;
  if (result?.status !== 'ACCEPTED' || !result.data_version)
    throw new Error(`batch-create: ${started.status} ${started.text}`);
  const versionNumber = result.data_version.version_number;
  const params = { data_table_id: tableId, version_number: versionNumber };
  const seen: PipelineRun['seen'][number][] = [];
  const deadline = postedAt + IMPORT_MS;
  let polls = 0;
  let last = '';
  for (;;) {
    const pollStart = now();
    const response = await withTimeout(api.call('getDataVersion', { params }), HTTP_MS, 'getDataVersion');
    const at = now();
    polls += 1;
    if (response.status !== 200)
      throw new Error(`getDataVersion ${tableId}/${versionNumber}: ${response.status} ${response.text}`);
    const { execution, metadata } = response.body;
    const { stage, percent } = execution.progress;
    const key = `${execution.status} ${stage} ${percent}`;
    if (key !== last) {
      seen.push({ atMs: at - postedAt, status: execution.status, stage, percent });
      last = key;
    }
    if (execution.status === 'COMPLETED') {
      const rowCount = metadata?.row_count;
      if (rowCount !== rows)
        throw new Error(`version ${versionNumber} COMPLETED with metadata.row_count ${rowCount}, expected ${rows}`);
      const profile = await ask(child, { type: 'profile' }, 'profile');
      return {
        ms: at - postedAt,
        stages: { accepted: acceptedAt - postedAt },
        versionNumber,
        polls,
        seen,
        profile,
        postedAt,
      };
    }
    if (execution.status === 'FAILED' || execution.status === 'ABORTED') {
      throw new Error(
        `import of version ${versionNumber} ended ${execution.status}: ${JSON.stringify(execution.error)}`,
      );
    }
    if (at > deadline)
      throw new Error(`import of version ${versionNumber} still ${execution.status} after ${IMPORT_MS / 1000} s`);
    await sleep(Math.max(0, pollStart + pollIntervalMs - now()));
  }
}

// ---------------------------------------------------------------------------------------------
// Bare script and DuckDB alone

/**
 * The bare script inside the twin's process, with the worker's engine settings, while this
 * process polls the version `polled` as often as a pipeline run's client does: the same work
 * as the worker's, under the same load on the process it shares with the API and the stores.
 */
async function bareInTwin(
  child: ChildProcess,
  label: string,
  rows: number,
  polled: { readonly api: ApiClient; readonly params: VersionParams; readonly intervalMs: number },
): Promise<RunResult> {
  let running = true;
  const polls = (async () => {
    while (running) {
      const pollStart = now();
      const response = await withTimeout(
        polled.api.call('getDataVersion', { params: polled.params }),
        HTTP_MS,
        'getDataVersion',
      );
      if (response.status !== 200) throw new Error(`getDataVersion: ${response.status} ${response.text}`);
      await sleep(Math.max(0, pollStart + polled.intervalMs - now()));
    }
  })();
  // A failed poll is thrown below, once the bare run has answered; until then it must not be an unhandled rejection.
  polls.catch(() => undefined);
  try {
    const done = await ask(child, { type: 'bare', label, rows }, 'bare-done', IMPORT_MS);
    if ('error' in done) throw new Error(`bare script in the twin process: ${done.error}`);
    return done.result;
  } finally {
    running = false;
    await polls;
  }
}

async function duckDbRun(
  csvPath: string,
  dir: string,
  index: number,
  rows: number,
): Promise<RunResult & { parquetBytes: number }> {
  const parquetPath = join(dir, `duckdb-${index}.parquet`);
  try {
    const begin = now();
    const written = await csvToParquet('defaults', csvPath, parquetPath, dir);
    const end = now();
    if (written !== rows) throw new Error(`DuckDB alone: COPY wrote ${written} rows, expected ${rows}`);
    return { ms: end - begin, stages: {}, parquetBytes: (await stat(parquetPath)).size };
  } finally {
    await rm(parquetPath, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------

export async function measureImportThroughput(settings: ImportSettings): Promise<ImportReport> {
  const csv = await ensureCsv(settings.rows);
  return withImportTwin('dps-bench-import-', async ({ child, dir, s3, api, ready }) => {
    // Not timed: the source object is in the twin's S3 before anything is measured.
    await upload(s3, SOURCE_BUCKET, SOURCE_KEY, csv.path, 'text/csv');
    const tableId = await tableOverSource(api, ready, SOURCE_FOLDER, 'bench import');
    const pipelineRuns: PipelineRun[] = [];
    const bareRuns: RunResult[] = [];
    const bareWorkerEngineRuns: RunResult[] = [];
    const bareInTwinRuns: RunResult[] = [];
    const duckDbRuns: RunResult[] = [];
    let parquetBytes = 0;
    const warmup = settings.warmupRounds ?? 1;
    for (let index = 0; index < warmup + settings.runs; index++) {
      const pipelineResult = await pipelineRun(
        api,
        child,
        tableId,
        settings.rows,
        settings.pollIntervalMs ?? POLL_INTERVAL_MS,
      );
      const bareResult = await bareImport(s3, dir, `bare-${index}`, settings.rows, 'defaults');
      const bareWorkerEngineResult = await bareImport(s3, dir, `bare-worker-${index}`, settings.rows, 'worker');
      const bareInTwinResult = await bareInTwin(child, `bare-in-twin-${index}`, settings.rows, {
        api,
        params: { data_table_id: tableId, version_number: pipelineResult.versionNumber },
        intervalMs: settings.pollIntervalMs ?? POLL_INTERVAL_MS,
      });
      const duckResult = await duckDbRun(csv.path, dir, index, settings.rows);
      if (index < warmup) continue;
      pipelineRuns.push(pipelineResult);
      bareRuns.push(bareResult);
      bareWorkerEngineRuns.push(bareWorkerEngineResult);
      bareInTwinRuns.push(bareInTwinResult);
      duckDbRuns.push(duckResult);
      parquetBytes = duckResult.parquetBytes;
    }
    return {
      settings,
      csvPath: csv.path,
      csvBytes: csv.bytes,
      csvReused: csv.reused,
      parquetBytes,
      pipeline: pipelineRuns,
      bare: bareRuns,
      bareWorkerEngine: bareWorkerEngineRuns,
      bareInTwin: bareInTwinRuns,
      duckdb: duckDbRuns,
      twinPeakRssMb: await peakRssMb(child.pid ?? 0),
    };
  });
}

// Summaries shared by the benches' reports

/** The median of `values` (the mean of the middle two when their count is even). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const minimum = (values: readonly number[]): number => Math.min(...values);
