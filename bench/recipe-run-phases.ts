/**
 * Where a recipe run's time goes (bench/recipe-run.ts): consecutive phases from the POST to
 * the completion the service recorded, from the twin process's spans
 * (bench/import-twin-process.ts: the worker's invocation, its S3 and DynamoDB calls;
 * bench/engine-process-watch.ts: the engine process's start, its task and its DuckDB
 * statements), and which of them the bare script (bench/recipe-bare.ts) does too.
 */
import { ENGINE_PROCESS_START } from './engine-process-watch';
import type { ImportProfile, Span } from './import-protocol';
import { median } from './import-throughput';
import type { BareTimes } from './recipe-bare';

/** One phase: its name and length (ms); `bare` names the bare script's stage that does the same work. */
export interface RecipePhase {
  readonly name: string;
  readonly ms: number;
  readonly bare?: BareStage;
}

/** The bare script's stages (recipe-bare.ts). */
export type BareStages = BareTimes['stages'];
export type BareStage = keyof BareStages;

export interface RecipePhases {
  /** Consecutive: they add up to the run's recorded time. */
  readonly phases: readonly RecipePhase[];
  /** The engine process's start when the run paid one (none was idle), fork → ready, overlapping the phases. */
  readonly engineStartMs?: number;
  /** The output's data file upload, which overlaps the engine's describe and analysis. */
  readonly dataUploadMs: number;
  /** Bytes of the inputs downloaded, and their rate (MB/s, all inputs over the download phase). */
  readonly inputBytes: number;
  readonly downloadMBps: number;
  /** The twin process's CPU (ms, all its threads; not the engine process's) and its event loop's busy share during the run. */
  readonly twinCpuMs: number;
  readonly eventLoopUtilization: number;
  /** API requests the twin answered during the run (the bench's polls). */
  readonly apiRequests: number;
}

/** The start (fork → ready, ms) of the engine process the profiled run started; undefined when it took an idle one. */
export function engineProcessStartOf(profile: ImportProfile): number | undefined {
  const start = profile.spans.find((span) => span.kind === 'engine' && span.label === ENGINE_PROCESS_START);
  return start && start.end - start.start;
}

const latest = (spans: readonly Span[]) => Math.max(...spans.map((span) => span.end));
const earliest = (spans: readonly Span[]) => Math.min(...spans.map((span) => span.start));

/**
 * The phases of one run, POST at `postedAt` and completion recorded `recordedMs` later; undefined
 * when a span the phases need is missing (a run the twin did not watch whole).
 */
export function recipePhasesOf(
  postedAt: number,
  recordedMs: number,
  profile: ImportProfile,
  dataBucket: string,
): RecipePhases | undefined {
  const { spans } = profile;
  const of = (kind: Span['kind'], test: (label: string) => boolean) =>
    spans.filter((span) => span.kind === kind && test(span.label));
  const worker = of('worker', (label) => label === 'run-recipe');
  const inputs = of('S3', (label) => label.startsWith(`GetObject ${dataBucket}/`) && label.endsWith('/data.parquet'));
  const task = of('engine', (label) => label.startsWith('task recipe-run → result'));
  const copy = of('engine', (label) => label === 'COPY recipe output → parquet');
  const dataUpload = of('S3', (label) => label.startsWith('PutObject ') && label.endsWith('/data.parquet'));
  if ([worker, inputs, task, copy, dataUpload].some((found) => found.length === 0)) return undefined;
  const at = (time: number) => time - postedAt;
  const points: [string, number, BareStage?][] = [
    ['POST → worker starts (API, Step Functions start)', at(earliest(worker))],
    ['worker start → input GetObjects (status writes, run reads)', at(earliest(inputs))],
    ['input downloads (GetObject → local file, in parallel)', at(latest(inputs)), 'downloadMs'],
    ['downloads → engine task sent (an engine process taken or started)', at(earliest(task))],
    ['engine: DuckDB instance, sandbox settings, views', at(earliest(copy)), 'queryMs'],
    ['engine: COPY recipe output → parquet (the query)', at(latest(copy)), 'queryMs'],
    ['engine: describe, preview, analysis (data upload meanwhile)', at(latest(task))],
    ['result → COMPLETED recorded (uploads, CPU usage, completion write)', recordedMs],
  ];
  let previous = 0;
  const phases = points.map(([name, end, bare]) => {
    const phase = { name, ms: end - previous, ...(bare ? { bare } : {}) };
    previous = end;
    return phase;
  });
  const inputBytes = inputs.reduce((sum, span) => sum + (span.responseBytes ?? 0), 0);
  return {
    phases,
    engineStartMs: engineProcessStartOf(profile),
    dataUploadMs: latest(dataUpload) - earliest(dataUpload),
    inputBytes,
    downloadMBps: inputBytes / 1e6 / ((latest(inputs) - earliest(inputs)) / 1000),
    twinCpuMs: profile.cpuMs,
    eventLoopUtilization: profile.eventLoopUtilization,
    apiRequests: profile.apiRequests,
  };
}

/** The phases named here, as recipePhasesOf names them. */
const ENGINE_WAIT = 'downloads → engine task sent (an engine process taken or started)';

/**
 * What of a run is the twin's and not the service's, measured: the wait for an engine process
 * after the downloads (on the twin its start from a bundle, as a deployed function's), and the downloads' time beyond the bare script's GETs of the same files from the
 * same s3rver, which the worker does with the same code (GetObject piped to a file, the
 * inputs in parallel) inside the process that also runs s3rver, the API the bench polls, the
 * stores and the job machinery.
 */
export interface TwinShare {
  readonly engineWaitMs: number;
  readonly downloadExcessMs: number;
}

export function twinShareOf(run: RecipePhases, bare: BareStages): TwinShare {
  const ms = (name: string) => run.phases.find((phase) => phase.name === name)?.ms ?? 0;
  const downloads = run.phases.filter((phase) => phase.bare === 'downloadMs').reduce((sum, { ms }) => sum + ms, 0);
  return { engineWaitMs: ms(ENGINE_WAIT), downloadExcessMs: Math.max(0, downloads - bare.downloadMs) };
}

const ms0 = (value: number): string => value.toFixed(0);

/**
 * The runs' phases as a table (one column per run, their median, the bare script's stage
 * doing the same work), then what the twin adds and the pipeline's own work, in ms.
 */
export function recipePhaseLines(phases: readonly (RecipePhases | null)[], bare: readonly BareStages[]): string[] {
  const runs = phases.filter((run): run is RecipePhases => run !== null);
  if (runs.length === 0 || runs.length !== phases.length) return ["(a run's twin spans were incomplete: no breakdown)"];
  const columns = runs.map((_, index) => `run ${index + 1} ms`);
  const counterpart: Record<BareStage, string> = {
    downloadMs: 'the 2 GETs in parallel',
    queryMs: 'DuckDB instance, views, COPY',
    uploadMs: 'the PUT',
  };
  const lines = [
    `| phase | ${columns.join(' | ')} | median ms | bare script, median ms |`,
    `|---|${columns.map(() => '--:|').join('')}--:|--:|`,
  ];
  for (const [index, { name, bare: stage }] of runs[0]!.phases.entries()) {
    const values = runs.map((run) => run.phases[index]!.ms);
    const same = stage ? `${ms0(median(bare.map((round) => round[stage])))} (${counterpart[stage]})` : '';
    lines.push(`| ${name} | ${values.map(ms0).join(' | ')} | ${ms0(median(values))} | ${same} |`);
  }
  const shares = runs.map((run, index) => twinShareOf(run, bare[index]!));
  const pick = (get: (run: RecipePhases) => number | undefined) =>
    runs.map((run) => (get(run) === undefined ? '–' : ms0(get(run)!))).join(', ');
  lines.push(
    '',
    `- Waits for an engine process after the downloads: ${shares.map((share) => ms0(share.engineWaitMs)).join(', ')} ms; ` +
      `engine processes started during the runs (fork → ready, while the inputs download): ${pick((run) => run.engineStartMs)} ms.`,
    `- Inputs: ${(runs[0]!.inputBytes / 1e6).toFixed(0)} MB at ${pick((run) => run.downloadMBps)} MB/s; beyond the bare script's same GETs ${shares.map((share) => ms0(share.downloadExcessMs)).join(', ')} ms. ` +
      `The output's data upload ${pick((run) => run.dataUploadMs)} ms, during the describe and analysis.`,
    `- Twin process during the run: CPU ${pick((run) => run.twinCpuMs)} ms (the engine process's apart), event loop busy ${runs.map((run) => (run.eventLoopUtilization * 100).toFixed(0)).join(', ')}%, ${runs.map((run) => run.apiRequests).join(', ')} API requests (the polls).`,
  );
  return lines;
}
