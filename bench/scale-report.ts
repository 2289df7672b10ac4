/**
 * The 10M-row section's report (bench/scale.ts measures): three ratios against the bare
 * scripts, each with the bound this machine and the one-process twin put on it, the engines'
 * memory against the cap, and the same figures as JSON for plotting (bench/results/scale.json).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { median } from './import-throughput';
import { importRatios, phasesOf, type PhaseBreakdown } from './import-throughput-report';
import type { MultipartExportReport } from './multipart-export';
import { recipeRunRatio, type RecipeRunReport } from './recipe-run';
import { twinShareOf } from './recipe-run-phases';
import { measureScale, type ScaleReport } from './scale';
import { isFailed, type Failed } from './scale-part';
import { fargateSection } from './scale-fargate';

/** Issue 28's targets: throughput through the pipeline as a share of the bare script's. */
export const SCALE_TARGETS = { import: 1.0, recipeRun: 1.0, multipartExport: 0.9 } as const;

/** One comparison: the ratio (bare time / pipeline time, medians), its target, and the most this machine allows. */
export interface ScaleRatio {
  readonly name: string;
  readonly pipelineMs: number;
  readonly bareMs: number;
  readonly ratio: number;
  readonly target: number;
  /** The ratio the pipeline would reach were its own overhead (below) gone or fully overlapped. */
  readonly bound: number;
  /** What the bound stands for. */
  readonly boundReason: string;
}

const ms0 = (value: number): string => value.toFixed(0);
const mb0 = (value: number | undefined): string => (value === undefined ? 'n/a' : value.toFixed(0));

function importRatio(report: ScaleReport['imported']): ScaleRatio | Failed {
  if (isFailed(report)) return report;
  const medianMs = (runs: readonly { readonly ms: number }[]) => median(runs.map((run) => run.ms));
  const bareMs = medianMs(report.bare);
  const pipelineMs = medianMs(report.pipeline);
  const phases = report.pipeline.map(phasesOf).filter((phase): phase is PhaseBreakdown => phase !== undefined);
  // The stages the bare script has too; every other phase is the pipeline's own (job start, status writes, checks, sample, preview).
  const shared = ['source download', 'DuckDB instance + COPY', 'uploads to the data bucket'];
  const overhead = median(
    phases.map((breakdown) =>
      breakdown.phases
        .filter(({ name }) => !shared.some((stage) => name.includes(stage)))
        .reduce((sum, { ms }) => sum + ms, 0),
    ),
  );
  // The same script with the same engine, in the bench's process and in the twin's: the difference is the one-process twin's.
  const sharedProcessMs = Math.max(0, medianMs(report.bareInTwin) - medianMs(report.bareWorkerEngine));
  const engineSettingsMs = medianMs(report.bareWorkerEngine) - bareMs;
  return {
    name: `import of a ${report.settings.rows.toLocaleString('en-US')}-row CSV`,
    pipelineMs,
    bareMs,
    ratio: importRatios(report).pipelineVsBare.median,
    target: SCALE_TARGETS.import,
    bound: bareMs / (pipelineMs - sharedProcessMs),
    boundReason:
      `the pipeline without what the twin's one process costs the same work, measured: the bare script with the worker's DuckDB settings took ` +
      `${ms0(sharedProcessMs)} ms longer inside the twin's process, polled as the pipeline is, than in the bench's. Of the rest, the worker's DuckDB settings cost ` +
      `${engineSettingsMs > 0 ? `${ms0(engineSettingsMs)} ms` : `nothing measurable (${ms0(engineSettingsMs)} ms)`} and the pipeline's own work (job start, status writes, CSV checks, sample, preview, polls) ${ms0(overhead)} ms`,
  };
}

function recipeRatio(report: RecipeRunReport | Failed): ScaleRatio | Failed {
  if (isFailed(report)) return report;
  const bareMs = median(report.bareMs);
  const pipelineMs = median(report.pipelineMs);
  const shares = report.pipelinePhases.flatMap((run, index) => {
    const bare = report.bareStages[index];
    return run && bare ? [twinShareOf(run, bare)] : [];
  });
  const wait = median(shares.map((share) => share.engineWaitMs));
  const excess = median(shares.map((share) => share.downloadExcessMs));
  return {
    name: `recipe run, ${report.settings.rows.toLocaleString('en-US')} × ${report.settings.smallRows.toLocaleString('en-US')} rows joined and grouped`,
    pipelineMs,
    bareMs,
    ratio: recipeRunRatio(report),
    target: SCALE_TARGETS.recipeRun,
    bound: shares.length > 0 ? bareMs / (pipelineMs - wait - excess) : Number.NaN,
    boundReason:
      `the pipeline without what the twin adds, measured: its input downloads beyond the bare script's GETs of the same files (${ms0(excess)} ms; ` +
      `the same code, run inside the process that also runs s3rver, the stores and the API) and the wait for an engine process after them (${ms0(wait)} ms)`,
  };
}

function exportRatio(report: MultipartExportReport | Failed): ScaleRatio | Failed {
  if (isFailed(report)) return report;
  const [download, sliced, raw] = [median(report.downloadMs), median(report.slicedMs), median(report.rawMs)];
  const bareMs = download + sliced + raw;
  const pipelineMs = median(report.pipelineMs);
  return {
    name: `multi-part export of ${report.settings.rows.toLocaleString('en-US')} rows as CSV in ${report.settings.parts} parts`,
    pipelineMs,
    bareMs,
    ratio: bareMs / pipelineMs,
    target: SCALE_TARGETS.multipartExport,
    bound: bareMs / (download + Math.max(sliced, raw)),
    boundReason: `perfect overlap of the conversion (${ms0(sliced)} ms) and the upload (${ms0(raw)} ms) after the download (${ms0(download)} ms)`,
  };
}

/** The three comparisons of a report, each a ratio or why its measurement failed. */
export function scaleRatios(report: ScaleReport): (ScaleRatio | Failed)[] {
  return [importRatio(report.imported), recipeRatio(report.recipe), exportRatio(report.exported)];
}

/** One verdict line per comparison, as `npm run bench` prints them. */
export function scaleVerdicts(report: ScaleReport): string[] {
  return scaleRatios(report).map((ratio) =>
    isFailed(ratio)
      ? `FAIL: a 10M-row measurement failed: ${ratio.error}`
      : `${ratio.ratio >= ratio.target ? 'ok' : 'below target (not enforced)'}: ${ratio.name}, pipeline / bare script ${ratio.ratio.toFixed(2)} – target ≥ ${ratio.target.toFixed(2)}; bound on this machine ${ratio.bound.toFixed(2)}`,
  );
}

export function scaleSection(report: ScaleReport): string[] {
  const { settings, engines } = report;
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const lines = [
    `## Throughput past the fixed costs: ${(settings.rows / 1e6).toLocaleString('en-US')}M rows`,
    '',
    `${report.startedAt} · load average before ${load(report.loadBefore)}, after ${load(report.loadAfter)} · CSV ${(report.csvBytes / 1e6).toFixed(0)} MB, generated in ${ms0(report.csvGenerationMs)} ms (not timed) and deleted after.`,
    `Job workers capped as a ${settings.workerMemoryMb} MB Lambda: import DuckDB memory_limit ${engines.worker.memoryLimitMb} MB, ${engines.worker.threads} threads, spill up to ${engines.worker.maxTempDirectorySizeMb} MB;`,
    `a recipe run's engine process killed past ${engines.recipeProcessCapMb} MB resident, its DuckDB memory_limit ${engines.recipeRun.memoryLimitMb} MB with a spill folder. ${settings.runs} measured run(s) of each side, no warm-up round (the recipe run: one untimed run on samples first, which starts the twin's engine process).`,
    'The bare scripts are those of the 1M-row sections (DuckDB with its defaults, nothing of ours around it).',
    '',
    '| comparison | pipeline ms | bare script ms | pipeline / bare | target | bound on this machine | the bound is |',
    '|---|--:|--:|--:|--:|--:|---|',
  ];
  for (const ratio of scaleRatios(report)) {
    if (isFailed(ratio)) lines.push(`| (failed: ${ratio.error}) | | | | | | |`);
    else
      lines.push(
        `| ${ratio.name} | ${ms0(ratio.pipelineMs)} | ${ms0(ratio.bareMs)} | ${ratio.ratio.toFixed(2)} ${ratio.ratio >= ratio.target ? '(met)' : '(**not met**)'} | ≥ ${ratio.target.toFixed(2)} | ${ratio.bound.toFixed(2)} | ${ratio.boundReason} |`,
      );
  }
  lines.push('');
  if (!isFailed(report.imported)) {
    const phases = report.imported.pipeline.map(phasesOf)[0];
    const stages = (runs: readonly { readonly stages: Readonly<Record<string, number>> }[]) => {
      const first = runs[0]?.stages ?? {};
      return `download ${ms0(first.download ?? Number.NaN)}, COPY ${ms0(first.copy ?? Number.NaN)}, upload ${ms0(first.upload ?? Number.NaN)} ms`;
    };
    const { imported } = report;
    lines.push(
      `- Import: twin process peak RSS ${mb0(imported.twinPeakRssMb)} MB (API, stores, worker and its DuckDB in one process). ` +
        `Bare script: ${stages(imported.bare)}; with the worker's DuckDB settings: ${stages(imported.bareWorkerEngine)}; ` +
        `the same inside the twin's process, polled: ${stages(imported.bareInTwin)}; ` +
        `DuckDB alone ${ms0(median(report.imported.duckdb.map((run) => run.ms)))} ms.` +
        (phases
          ? ` Pipeline phases (first run): ${phases.phases.map(({ name, ms }) => `${name} ${ms0(ms)}`).join('; ')} ms.`
          : ''),
    );
  }
  if (!isFailed(report.recipe)) {
    const { recipe } = report;
    const phases = recipe.pipelinePhases[0];
    const bare = recipe.bareStages[0];
    lines.push(
      `- Recipe run: ${recipe.outputRows} output rows; engine process peak RSS ${mb0(recipe.enginePeakRssMb)} MB (cap ${engines.recipeProcessCapMb} MB); ` +
        `DuckDB alone ${ms0(median(recipe.duckDbMs))} ms; a run on samples ${ms0(median(recipe.sampleMs))} ms end to end; ` +
        `the twin's first engine process started in ${mb0(recipe.engineProcessStartMs)} ms (untimed run on samples before the measured ones).` +
        (bare
          ? ` Bare script: download ${ms0(bare.downloadMs)}, DuckDB ${ms0(bare.queryMs)}, upload ${ms0(bare.uploadMs)} ms.`
          : '') +
        (phases
          ? ` Pipeline phases (first run): ${phases.phases.map(({ name, ms }) => `${name} ${ms0(ms)}`).join('; ')} ms.`
          : ''),
    );
  }
  if (!isFailed(report.exported)) {
    const { exported } = report;
    lines.push(
      `- Multi-part export: ${(exported.bytes / 1e6).toFixed(0)} MB of CSV; bare script = download ${ms0(median(exported.downloadMs))} + DuckDB to CSV parts ${ms0(median(exported.slicedMs))} + ` +
        `UploadParts 4 at a time ${ms0(median(exported.rawMs))} ms (the raw SDK alone: pipeline / raw ${(median(exported.rawMs) / median(exported.pipelineMs)).toFixed(2)}).`,
    );
  }
  return lines;
}

/** The section as markdown and the report's figures as JSON (the import's twin spans left out: they are only for the section). */
export async function writeScaleResults(report: ScaleReport, lines: readonly string[], prefix: string): Promise<void> {
  await mkdir(dirname(prefix), { recursive: true });
  const withoutSpans = (result: ScaleReport['imported']) =>
    isFailed(result) ? result : { ...result, pipeline: result.pipeline.map(({ profile: _profile, ...run }) => run) };
  const fargate = report.fargate && { ...report.fargate, imported: withoutSpans(report.fargate.imported) };
  const document = {
    ...report,
    imported: withoutSpans(report.imported),
    ...(fargate ? { fargate } : {}),
    ratios: scaleRatios(report),
  };
  await writeFile(`${prefix}.json`, `${JSON.stringify(document, null, 2)}\n`);
  await writeFile(`${prefix}.md`, `${lines.join('\n')}\n`);
}

/**
 * The section as `npm run bench -- scale` runs it: settings from BENCH_SCALE_* (read by
 * `setting`, the bench's checked reader), the measurement, its files under bench/results/.
 */
export async function benchScale(
  setting: (name: string, fallback: number) => number,
): Promise<{ readonly lines: string[]; readonly verdicts: string[]; readonly failed: number }> {
  const report = await measureScale({
    rows: setting('BENCH_SCALE_ROWS', 10_000_000),
    smallRows: setting('BENCH_SCALE_SMALL_ROWS', 1_000_000),
    parts: setting('BENCH_SCALE_PARTS', 10),
    runs: setting('BENCH_SCALE_RUNS', 1),
    workerMemoryMb: setting('BENCH_SCALE_WORKER_MEMORY_MB', 3072),
    // The Fargate path (issue 39) beside the Lambda path, its tasks sized by this.
    taskMemoryMb: setting('BENCH_SCALE_TASK_MEMORY_MB', 6144),
  });
  const fargate = report.fargate === undefined ? undefined : fargateSection(report.fargate);
  const lines = [...scaleSection(report), ...(fargate?.lines ?? [])];
  await writeScaleResults(report, lines, 'bench/results/scale');
  const verdicts = [...scaleVerdicts(report), ...(fargate?.verdicts ?? [])];
  return { lines: [...lines, ''], verdicts, failed: verdicts.filter((line) => line.startsWith('FAIL')).length };
}
