/**
 * Import throughput: one large CSV imported through the whole service, next to the same work
 * done by a bare script and by DuckDB alone, in the same run.
 *
 * - pipeline: the twin in a child process (bench/import-twin-process.ts), the CSV in its S3;
 *   over HTTP as a client would: token, connection, data source, data table, then the time from
 *   POST /data-versions/batch-create until GET of the version (every 25 ms) reads COMPLETED.
 * - bare: a script with nothing of ours around it – S3 GetObject of the same object from the
 *   same s3rver streamed to a local file, DuckDB COPY of read_csv to Parquet, S3 PutObject of
 *   the Parquet file back to s3rver.
 * - duckdb: the same COPY on the local file, nothing else.
 *
 * Runs alternate pipeline, bare, duckdb so drift affects all three alike. The CSV is
 * generated once (not timed) and kept under os.tmpdir(), keyed by row count; everything else
 * lives in a temporary folder removed at the end, the twin's own temporary files included
 * (its TMPDIR points there), even if the child had to be killed. The report on the runs (phases,
 * ratios, the markdown section) is bench/import-throughput-report.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ApiClient } from '../test/support/api-client';
import { bareDuckDbCopy, sqlLiteral } from './bare-duckdb';
import { ensureCsv } from './bench-csv';
import { SOURCE_BUCKET, now, type ImportProfile } from './import-protocol';
import { peakRssMb } from './scale-memory';
import { ask, HTTP_MS, sleep, tableOverSource, TRANSFER_MS, upload, withImportTwin, withTimeout } from './import-twin';

export interface ImportSettings {
  readonly rows: number;
  readonly runs: number;
  /** Wait between two polls of the version (25 ms unless set; a profiling knob). */
  readonly pollIntervalMs?: number;
  /** Rounds run first and discarded (1 unless set): the first import of a fresh twin also pays JIT warm-up. */
  readonly warmupRounds?: number;
}

/** One timed run; `stages` are the parts of it that were timed separately (ms). */
export interface RunResult {
  readonly ms: number;
  readonly stages: Readonly<Record<string, number>>;
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
  readonly duckdb: readonly RunResult[];
  /** Peak resident memory of the twin process (API, stores, worker and its in-process DuckDB), MB; undefined without /proc. */
  readonly twinPeakRssMb: number | undefined;
}

const SOURCE_FOLDER = 'import';
const SOURCE_KEY = `${SOURCE_FOLDER}/data.csv`;
/** Wait between two polls of the version unless the settings say otherwise. */
export const POLL_INTERVAL_MS = 25;

/** Bound of one whole import. */
const IMPORT_MS = 600_000;

async function pipelineRun(
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

/** DuckDB's COPY of the CSV to Parquet in a fresh in-memory instance with its defaults; the rows written. */
function duckDbCopy(csvPath: string, parquetPath: string): Promise<number> {
  return bareDuckDbCopy(
    [],
    `COPY (SELECT * FROM read_csv(${sqlLiteral(csvPath)})) TO ${sqlLiteral(parquetPath)} (FORMAT parquet)`,
  );
}

async function bareRun(s3: S3Client, dir: string, index: number, rows: number): Promise<RunResult> {
  const csvPath = join(dir, `bare-${index}.csv`);
  const parquetPath = join(dir, `bare-${index}.parquet`);
  try {
    const begin = now();
    const { Body: body } = await s3.send(new GetObjectCommand({ Bucket: SOURCE_BUCKET, Key: SOURCE_KEY }), {
      abortSignal: AbortSignal.timeout(TRANSFER_MS),
    });
    await pipeline(body as Readable, createWriteStream(csvPath), { signal: AbortSignal.timeout(TRANSFER_MS) });
    const downloaded = now();
    const written = await duckDbCopy(csvPath, parquetPath);
    const copied = now();
    await upload(s3, SOURCE_BUCKET, `bare/out-${index}.parquet`, parquetPath, 'application/vnd.apache.parquet');
    const end = now();
    if (written !== rows) throw new Error(`bare script: COPY wrote ${written} rows, expected ${rows}`);
    return {
      ms: end - begin,
      stages: { download: downloaded - begin, copy: copied - downloaded, upload: end - copied },
    };
  } finally {
    await Promise.all([rm(csvPath, { force: true }), rm(parquetPath, { force: true })]);
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
    const written = await duckDbCopy(csvPath, parquetPath);
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
      const bareResult = await bareRun(s3, dir, index, settings.rows);
      const duckResult = await duckDbRun(csv.path, dir, index, settings.rows);
      if (index < warmup) continue;
      pipelineRuns.push(pipelineResult);
      bareRuns.push(bareResult);
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
