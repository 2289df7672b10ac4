/**
 * The import-throughput bench's report (bench/import-throughput.ts measures): where each
 * pipeline run's time went, from the twin's spans, the throughput ratios, and the markdown section.
 */
import { median, minimum, POLL_INTERVAL_MS, type ImportReport, type PipelineRun } from './import-throughput';
import { SOURCE_BUCKET, type RunResult, type Span } from './import-protocol';

/** Where one import's time went, from the twin's spans (ms, consecutive, adding up to the run's time). */
export interface PhaseBreakdown {
  readonly phases: readonly { readonly name: string; readonly ms: number }[];
  /** MB/s of the source download inside the worker. */
  readonly downloadMBps: number;
  /** The worker's source GetObject alone (ms, request → end of body). */
  readonly downloadMs: number;
  /** The worker's COPY read_csv → parquet alone (ms). */
  readonly copyMs: number;
  /** From the COMPLETED write to the handler's return (ms): not in the client's time, but the worker's. */
  readonly workerTailMs: number;
  readonly dynamoCalls: number;
}

export function phasesOf(run: PipelineRun): PhaseBreakdown | undefined {
  const spans = run.profile.spans;
  const at = (time: number) => time - run.postedAt;
  const workers = spans.filter((span) => span.kind === 'worker' && span.label === 'import-data-version');
  const download = spans.find((span) => span.kind === 'S3' && span.label.startsWith(`GetObject ${SOURCE_BUCKET}/`));
  const duck = spans.filter((span) => span.kind === 'DuckDB');
  const copy = duck.find((span) => span.label.startsWith('COPY read_csv'));
  const puts = spans.filter((span) => span.kind === 'S3' && span.label.startsWith('PutObject '));
  if (workers.length === 0 || !download || duck.length === 0 || !copy || puts.length === 0) return undefined;
  const workerStart = at(Math.min(...workers.map((span) => span.start)));
  const workerEnd = at(Math.max(...workers.map((span) => span.end)));
  const engineStart = at(Math.min(...duck.map((span) => span.start)));
  const engineEnd = at(Math.max(...duck.map((span) => span.end)));
  const uploadEnd = at(Math.max(...puts.map((span) => span.end)));
  // markCompleted: the transaction that ends the job and releases the table's lock, after the uploads.
  const completedWrite = spans.find(
    (span) => span.kind === 'DynamoDB' && span.label === 'TransactWriteItems' && at(span.start) >= uploadEnd,
  );
  const completedAt = completedWrite ? at(completedWrite.end) : workerEnd;
  const points: [string, number][] = [
    ['POST → worker starts (API, Step Functions start)', workerStart],
    ['worker start → source GetObject (status write, reads, KMS, listing)', at(download.start)],
    ['source download (GetObject → local file)', at(download.end)],
    ['download → DuckDB (usage write, CSV checks)', engineStart],
    ['DuckDB instance + COPY read_csv → parquet', at(copy.end)],
    ['rest of DuckDB (describe, sample, JSON lines, preview)', engineEnd],
    ['DuckDB closed, 5 uploads to the data bucket in parallel', uploadEnd],
    ['uploads → COMPLETED written (stat, transaction)', completedAt],
    ['COMPLETED written → a poll reads it', run.ms],
  ];
  let previous = 0;
  const phases = points.map(([name, end]) => {
    const ms = end - previous;
    previous = end;
    return { name, ms };
  });
  const downloadMs = download.end - download.start;
  return {
    phases,
    downloadMBps: (download.responseBytes ?? 0) / 1e6 / (downloadMs / 1000),
    downloadMs,
    copyMs: copy.end - copy.start,
    workerTailMs: workerEnd - completedAt,
    dynamoCalls: spans.filter((span) => span.kind === 'DynamoDB').length,
  };
}

// ---------------------------------------------------------------------------------------------
// The report section

/** The pipeline's throughput as a share of the bare script's (bare time / pipeline time): the target. */
export const PIPELINE_TARGET = 0.8;

const ms0 = (value: number): string => value.toFixed(0);
const ratio = (value: number): string => value.toFixed(2);
const perSecond = (rows: number, ms: number): string => Math.round(rows / (ms / 1000)).toLocaleString('en-US');

export interface ImportRatios {
  /** bare time / pipeline time: of the medians, of the best runs, and the median of the rounds' own ratios (adjacent runs, so less drift). */
  readonly pipelineVsBare: Ratio;
  /** DuckDB-alone time / bare time, likewise. */
  readonly bareVsDuckDb: Ratio;
}

export interface Ratio {
  readonly median: number;
  readonly best: number;
  readonly perRound: number;
}

/** How much throughput `slower` keeps of `faster`'s: time of faster / time of slower. */
function throughputRatio(slower: readonly RunResult[], faster: readonly RunResult[]): Ratio {
  const [a, b] = [slower.map((run) => run.ms), faster.map((run) => run.ms)];
  return {
    median: median(b) / median(a),
    best: minimum(b) / minimum(a),
    perRound: median(a.map((time, index) => b[index]! / time)),
  };
}

export function importRatios(report: ImportReport): ImportRatios {
  return {
    pipelineVsBare: throughputRatio(report.pipeline, report.bare),
    bareVsDuckDb: throughputRatio(report.bare, report.duckdb),
  };
}

export function importSection(report: ImportReport): string[] {
  const { rows, runs } = report.settings;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const ratios = importRatios(report);
  const lines = [
    `## Import throughput: pipeline vs bare script vs DuckDB alone`,
    '',
    `One CSV of ${rows.toLocaleString('en-US')} rows, ${mb(report.csvBytes)} MB, 7 columns (BIGINT, VARCHAR, DOUBLE, DATE, BOOLEAN, VARCHAR, VARCHAR 40% empty/10% quoted),`,
    `${report.csvReused ? 'reused from' : 'generated into'} ${report.csvPath} (not timed); Parquet ${mb(report.parquetBytes)} MB. ${runs} runs of each, alternating pipeline, bare, DuckDB,`,
    `after ${report.settings.warmupRounds ?? 1} discarded warm-up round(s) (a fresh twin's first import also pays JIT warm-up; the bare side its first S3 call and DuckDB instance).`,
    '- **pipeline**: the twin in a child process (as `npm start`: API, Step Functions, worker, DuckDB, s3rver in one process); over HTTP, from',
    `  POST /data-versions/batch-create until GET of the version (every ${report.settings.pollIntervalMs ?? POLL_INTERVAL_MS} ms) reads COMPLETED with metadata.row_count = ${rows.toLocaleString('en-US')}.`,
    '- **bare**: in the bench process, nothing of ours: S3 GetObject from the same s3rver streamed to a file, DuckDB (defaults, fresh in-memory',
    '  instance) `COPY (SELECT * FROM read_csv(file)) TO file.parquet (FORMAT parquet)`, S3 PutObject of the Parquet file to the same s3rver.',
    "- **bare, the worker's DuckDB settings**: the same script with the COPY in the import worker's own engine (memory limit, threads and",
    "  spill folder of the worker's Lambda size, shared/engine/duckdb.ts); then that script once more inside the twin's process, beside",
    "  s3rver, the stores and the API, as the worker runs there, while the bench polls a version as often as a pipeline run's client does.",
    '  The three bare rows split what the engine settings and the shared process (with its polls) cost the same work.',
    '- **DuckDB alone**: the same COPY on the local file (fresh in-memory instance included).',
    '',
    '| measurement | runs ms | median ms | min ms | rows/s (median) | rows/s (best) | CSV MB/s (median) |',
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  const row = (name: string, results: readonly RunResult[]) => {
    const times = results.map((result) => result.ms);
    const mid = median(times);
    lines.push(
      `| ${name} | ${times.map(ms0).join(', ')} | ${ms0(mid)} | ${ms0(minimum(times))} | ${perSecond(rows, mid)} | ${perSecond(rows, minimum(times))} | ` +
        `${(report.csvBytes / 1e6 / (mid / 1000)).toFixed(0)} |`,
    );
  };
  row('pipeline (HTTP → Step Functions → worker → data bucket)', report.pipeline);
  row('bare script (GetObject → file, COPY, PutObject)', report.bare);
  row("bare script, the import worker's DuckDB settings", report.bareWorkerEngine);
  row("bare script, the import worker's DuckDB settings, inside the twin's process, polled", report.bareInTwin);
  row('DuckDB alone (COPY on the local file)', report.duckdb);

  const meets = ratios.pipelineVsBare.median >= PIPELINE_TARGET;
  lines.push(
    '',
    '### Ratios (throughput ratio X / Y = time of Y / time of X)',
    '',
    "| comparison | of the medians | of the best runs | median of the rounds' ratios | target (on the medians) |",
    '|---|--:|--:|--:|---|',
    `| pipeline / bare | ${ratio(ratios.pipelineVsBare.median)} | ${ratio(ratios.pipelineVsBare.best)} | ${ratio(ratios.pipelineVsBare.perRound)} | ≥ ${ratio(PIPELINE_TARGET)}: ${meets ? 'met' : '**NOT met**'} |`,
    `| bare / DuckDB alone | ${ratio(ratios.bareVsDuckDb.median)} | ${ratio(ratios.bareVsDuckDb.best)} | ${ratio(ratios.bareVsDuckDb.perRound)} | – |`,
  );

  // Where the pipeline's time goes, next to the bare script's stages.
  const breakdowns = report.pipeline.map(phasesOf);
  const complete = breakdowns.filter((breakdown): breakdown is PhaseBreakdown => breakdown !== undefined);
  const bareStage = (name: string) => ms0(median(report.bare.map((run) => run.stages[name] ?? Number.NaN)));
  const bareCounterpart: Record<string, string> = {
    'source download (GetObject → local file)': `${bareStage('download')} (GetObject → file)`,
    'DuckDB instance + COPY read_csv → parquet': `${bareStage('copy')} (instance + COPY)`,
    'DuckDB closed, 5 uploads to the data bucket in parallel': `${bareStage('upload')} (PutObject, one file)`,
  };
  lines.push(
    '',
    '### Where the pipeline time goes (twin-side timestamps, relative to the POST)',
    '',
    "Consecutive phases adding up to the client's time, from timing hooks in the twin process (bench/import-twin-process.ts): the worker's",
    "invocation, outbound HTTP calls (diagnostics channels; an upload's call is seen from the end of its body), DuckDB statements.",
    '',
    `| phase | ${report.pipeline.map((_, index) => `run ${index + 1} ms`).join(' | ')} | median ms | bare script, median ms |`,
    `|---|${report.pipeline.map(() => '--:|').join('')}--:|--:|`,
  );
  if (complete.length === breakdowns.length && complete.length > 0) {
    for (const [index, { name }] of complete[0]!.phases.entries()) {
      const values = complete.map((breakdown) => breakdown.phases[index]!.ms);
      lines.push(
        `| ${name} | ${values.map(ms0).join(' | ')} | ${ms0(median(values))} | ${bareCounterpart[name] ?? ''} |`,
      );
    }
    const totals = report.pipeline.map((run) => run.ms);
    const bareMedian = median(report.bare.map((run) => run.ms));
    lines.push(`| **total** | ${totals.map(ms0).join(' | ')} | ${ms0(median(totals))} | ${ms0(bareMedian)} |`);
    // What the pipeline does that the bare script does not: every phase but the three they share.
    const overheads = complete.map((breakdown) =>
      breakdown.phases.filter(({ name }) => !(name in bareCounterpart)).reduce((sum, { ms }) => sum + ms, 0),
    );
    lines.push(
      '',
      `Pipeline-only work (every phase but download, COPY and upload): ${overheads.map(ms0).join(', ')} ms, median ${ms0(median(overheads))} ms. Were the shared`,
      `stages as fast as in the bare script, the pipeline/bare ratio would be ${ratio(bareMedian / (bareMedian + median(overheads)))} (bare median / (bare median + that overhead));`,
      'the worker downloads from s3rver inside the same process, the bare script across two processes, which is not the same work.',
    );
  } else {
    lines.push(`| (a run's spans were incomplete: no breakdown) | ${report.pipeline.map(() => '').join(' | ')} | | |`);
  }

  const spansOf = (run: PipelineRun, kind: Span['kind'], label: string) =>
    run.profile.spans.filter((span) => span.kind === kind && span.label === label);
  const startExecution = report.pipeline.flatMap((run) =>
    spansOf(run, 'SFN', 'StartExecution').map((span) => span.end - span.start),
  );
  const accepted = report.pipeline.map((run) => run.stages.accepted ?? Number.NaN);
  const pick = <T>(get: (run: PipelineRun) => T) => report.pipeline.map(get);
  lines.push(
    '',
    `- POST batch-create answered 202 after ${accepted.map(ms0).join(', ')} ms; of that, the local Step Functions' StartExecution took ${startExecution.map(ms0).join(', ')} ms.`,
    `- Worker, inside: source download ${pick((run) => phasesOf(run)?.downloadMBps.toFixed(0) ?? '?').join(', ')} MB/s; its COPY read_csv → parquet ${complete.map((b) => ms0(b.copyMs)).join(', ')} ms ` +
      `(bare script's instance + COPY: ${report.bare.map((run) => ms0(run.stages.copy ?? Number.NaN)).join(', ')} ms); handler returned ${complete.map((b) => ms0(b.workerTailMs)).join(', ')} ms after the COMPLETED write.`,
    `- Twin process per import: CPU ${pick((run) => ms0(run.profile.cpuMs)).join(', ')} ms (all threads, DuckDB's included); event loop busy ` +
      `${pick((run) => (run.profile.eventLoopUtilization * 100).toFixed(0)).join(', ')}%, longest event-loop delay ${pick((run) => ms0(run.profile.eventLoopMaxDelayMs)).join(', ')} ms; ` +
      `${pick((run) => run.profile.apiRequests).join(', ')} API requests (${pick((run) => run.polls).join(', ')} polls); ${complete.map((b) => b.dynamoCalls).join(', ')} DynamoDB calls (polls' reads included).`,
    `- Progress the polls saw (ms from the POST): ${report.pipeline
      .map(
        (run, index) =>
          `run ${index + 1}: ${run.seen.map((seen) => `${ms0(seen.atMs)} ${seen.status}${seen.stage ? `/${seen.stage} ${seen.percent}%` : ''}`).join(' → ')}`,
      )
      .join('; ')}. The worker writes progress at every stage change and with its heartbeat.`,
  );
  return lines;
}
