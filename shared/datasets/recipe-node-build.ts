import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as z from 'zod';
import { downloadFile, putFile, putJson } from '../aws/data-bucket';
import { VERSION_FILES, versionPrefix } from '../data-tables/storage';
import { DEFAULT_PREVIEW_ROWS } from '../engine/csv-import';
import { finishAthenaQuery, prepareAthenaQuery, type AthenaNode } from '../engine/athena/engine';
import type { AthenaHandoff, AthenaOutcome } from '../engine/athena/handoff';
import { functionMemoryMb } from '../engine/limits';
import { recipeEngineFor, type RecipeEngine } from '../engine/recipe-engines';
import type { RecipeFolders, RecipeRunResult, RecipeSource } from '../engine/recipe-run';
import type { QualityReport } from '../model/quality-rule';
import { AppError } from '../errors/app-error';
import { withCpuCounted } from '../jobs/cpu-usage';
import { EarlyUploads } from '../jobs/early-uploads';
import type { JobRef } from '../jobs/job-ref';
import { runsOn } from '../runs-on';
import { settleAll } from '../jobs/settle';
import { checkNodeQuality } from '../quality/check';
import { recordNodeCheck } from '../quality/node-history';
import { recipeStore } from '../recipes/store';
import { recipeVersions } from '../recipes/versions';
import { recipeRunJob, type BuildStep } from './jobs';
import type { NodeOutput, OutputKind, RunSource } from './run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from './run-storage';

/**
 * One node of a recipe run built: its inputs downloaded, its recipe read, its engine run
 * within the run's bounds, its output's files written.
 */
export type RunParams = z.output<typeof recipeRunJob.params>;

/** What one node's build works on. */
export interface NodeBuild {
  readonly job: JobRef;
  readonly params: RunParams;
  readonly step: BuildStep;
  readonly kind: OutputKind;
  /** The node's scratch folder, inside the job's. */
  readonly dir: string;
  /** Where the node's output goes in the data bucket. */
  readonly prefix: string;
  /** Aborted when the job fails, is aborted or superseded: the engine stops. */
  readonly signal: AbortSignal;
  /** The node's query as this worker handed it to the machine, and how it ended (a trino-sql node resumed). */
  readonly resumed?: ResumedQuery;
}

/** A trino-sql node's query the machine ran (infra/athena-branch.ts): the handoff and its outcome. */
export interface ResumedQuery {
  readonly handoff: AthenaHandoff;
  readonly outcome: AthenaOutcome;
}

/** A node built, or, for a trino-sql node, its query handed to the machine. */
export type BuiltNode = { readonly output: NodeOutput } | { readonly handoff: AthenaHandoff };

/** What the worker process keeps for itself (Node, the SDK, downloads) beside its engine process. */
const WORKER_PROCESS_RESERVE_MB = 512;
/** Time the worker keeps after its engine's limit to record the failure and clean up before Lambda's timeout. */
const WORKER_WIND_DOWN_SECONDS = 30;

/** The bounds of a run's engine: its worker's memory less the worker's own share, and its time less the wind-down. */
export function recipeRunLimits(): { readonly memoryMb: number; readonly timeoutMs: number } {
  const { memoryMb, timeoutSeconds } = recipeRunJob.worker;
  return {
    memoryMb: functionMemoryMb(memoryMb) - WORKER_PROCESS_RESERVE_MB,
    timeoutMs: (timeoutSeconds - WORKER_WIND_DOWN_SECONDS) * 1000,
  };
}

/** Where an alias's rows are (a data version's Parquet, or the upstream node's output of the same kind) and its columns. */
function sourceKey(
  { job, params, kind }: NodeBuild,
  source: RunSource,
): { key: string; schemaKey: string; missing: AppError } {
  if (source.data_table_id !== undefined && source.data_version_number !== undefined) {
    const file = kind === 'sample' ? VERSION_FILES.sample : VERSION_FILES.data;
    const folder = versionPrefix(job.tenant_id, source.data_table_id, source.data_version_number);
    return {
      key: folder + file,
      schemaKey: folder + VERSION_FILES.schema,
      missing: new AppError('20-1059', { params: [source.data_table_id, source.data_version_number] }),
    };
  }
  const folder = nodeOutputPrefix(job.tenant_id, params.dataset_id, params.version_number, source.node_id, kind);
  return {
    key: folder + NODE_OUTPUT_FILES.data,
    schemaKey: folder + NODE_OUTPUT_FILES.schema,
    missing: new AppError('20-1039', {
      params: [`${params.dataset_id}/${params.version_number}/${source.node_id}/${kind}`],
    }),
  };
}

async function download(key: string, path: string, missing: AppError, signal: AbortSignal): Promise<void> {
  try {
    await downloadFile(key, path, signal);
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') throw missing;
    throw error;
  }
}

/** The node's inputs in `inDir`: each alias's Parquet downloaded from the data bucket. */
async function downloadSources(build: NodeBuild, inDir: string): Promise<RecipeSource[]> {
  await mkdir(inDir, { recursive: true });
  return Promise.all(
    build.step.inputs.sources.map(async (source, index) => {
      const { key, missing } = sourceKey(build, source);
      const path = join(inDir, `source-${index}.parquet`);
      await download(key, path, missing, build.signal);
      return { alias: source.alias, path };
    }),
  );
}

/**
 * Builds one node once `started` (its status write) lands. The inputs download while the start
 * is written and the recipe is read; nothing is written under the node's prefix before
 * `started` lands.
 */
export async function buildNode(build: NodeBuild, started: Promise<void>): Promise<BuiltNode> {
  const { job, step, dir } = build;
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  // The downloads start before the recipe (and so its language) is read, as DuckDB runs need
  // them at once; a trino-sql node reads its inputs in Athena, so it stops them (below).
  const downloads = new AbortController();
  const sources = downloadSources({ ...build, signal: AbortSignal.any([build.signal, downloads.signal]) }, inDir);
  const downloaded = sources.then(
    () => undefined,
    () => undefined,
  );
  try {
    const [, [recipe, version]] = await settleAll([
      started,
      Promise.all([
        recipeStore.get(job.tenant_id, step.inputs.recipe_id),
        recipeVersions.get(job.tenant_id, step.inputs.recipe_id, step.inputs.recipe_version_number),
      ]),
      mkdir(outDir, { recursive: true }),
    ]);
    // Updates are refused while the run holds the version (20-1048): another code here is a broken invariant.
    if (version.lock_version !== step.inputs.recipe_lock_version)
      throw new AppError('10-500', { extraDetails: { cause: 'the recipe version changed during the run' } });
    const folders = { inDir, outDir, spillDir: join(dir, 'spill') };
    if (recipe.data.language === 'trino-sql') {
      downloads.abort();
      const node = athenaNode(build, version.code);
      // The machine waits for the query (infra/athena-branch.ts): prepared here, finished when it calls again.
      if (build.resumed) {
        const engine = athenaEngine(node, build.resumed);
        return { output: await builtOutput(build, engine, version.code, Promise.resolve([]), folders) };
      }
      // The run's start keeps such a build off tasks (run-launch.ts): a task's output is no handoff the machine reads.
      if (runsOn() !== 'lambda')
        throw new AppError('10-500', {
          extraDetails: {
            cause: `node ${step.node_id} is a trino-sql recipe, whose query only a run on Lambda hands to the state machine; this run is on a Fargate task`,
          },
        });
      return { handoff: await prepareAthenaQuery(node) };
    }
    const engine = recipeEngineFor(recipe.data.language);
    return { output: await builtOutput(build, engine, version.code, sources, folders) };
  } finally {
    // No download outlives the build that started it.
    await downloaded;
  }
}

/** What Athena needs of the node: its code and where each alias's file and schema are. */
function athenaNode(build: NodeBuild, code: string): AthenaNode {
  const sources = build.step.inputs.sources.map((source) => {
    const { key, schemaKey, missing } = sourceKey(build, source);
    return { alias: source.alias, dataKey: key, schemaKey, missing };
  });
  return { job: build.job, nodeId: build.step.node_id, nodePrefix: build.prefix, code, sources };
}

/**
 * Athena as the node's engine (engine/athena/engine.ts) once the machine ran its query: Athena
 * read the inputs where they are, and the worker's DuckDB engine writes the output's files from
 * what Athena wrote.
 */
function athenaEngine(node: AthenaNode, resumed: ResumedQuery): RecipeEngine {
  const finish = recipeEngineFor('duckdb-sql');
  return {
    run: (_code, _sources, folders, options) =>
      finishAthenaQuery(node, resumed.handoff, resumed.outcome, folders, options, finish),
  };
}

/**
 * Runs the engine and writes the output's files beside the run's CPU usage: the data file as
 * soon as the engine has written it, the preview and schema as soon as it has described it
 * (each while the engine goes on), the analysis last. Every upload settles before a failure
 * goes on to the build's clean-up, which removes them.
 */
async function builtOutput(
  { job, params, step, prefix, signal, kind, dir }: NodeBuild,
  engine: RecipeEngine,
  code: string,
  sources: Promise<readonly RecipeSource[]>,
  folders: RecipeFolders,
): Promise<NodeOutput> {
  const depth = params.schema_analysis_depth;
  const early = new EarlyUploads();
  const uploadData = (dataPath: string) =>
    early.start('data', () => putFile(prefix + NODE_OUTPUT_FILES.data, dataPath, 'application/vnd.apache.parquet'));
  const uploadDescription = ({ columns, previewRows }: Pick<RecipeRunResult, 'columns' | 'previewRows'>) =>
    early.start('description', () =>
      settleAll([
        putJson(prefix + NODE_OUTPUT_FILES.preview, previewRows),
        putJson(prefix + NODE_OUTPUT_FILES.schema, columns),
      ]),
    );
  const limits = recipeRunLimits();
  const options = {
    previewRows: DEFAULT_PREVIEW_ROWS,
    analysisDepth: depth,
    onData: uploadData,
    onDescribed: uploadDescription,
    limits,
    signal,
  };
  let quality: QualityReport | undefined;
  const { result, cpuSeconds } = await withCpuCounted(
    job.tenant_id,
    async () => {
      const value = await engine.run(code, sources, folders, options);
      // The node's data-quality rules over the output just written (while it uploads), bounded as the run's engine.
      const checked = await checkNodeQuality({
        tenantId: job.tenant_id,
        datasetId: params.dataset_id,
        nodeId: step.node_id,
        dataPath: value.dataPath,
        workDir: dir,
        signal,
        limits,
      });
      quality = checked?.report;
      return { value, elsewhereCpuSeconds: value.engineCpuSeconds + (checked?.cpuSeconds ?? 0) };
    },
    // An engine that did not tell (no early uploads) has its files uploaded here.
    (result) => [
      early.started('data') ?? uploadData(result.dataPath),
      early.started('description') ?? uploadDescription(result),
      putJson(prefix + NODE_OUTPUT_FILES.analysis(depth), result.analysis),
      // The check goes to the node's history with the output's files; the report itself goes with the output.
      ...(quality
        ? [
            recordNodeCheck(
              job.tenant_id,
              {
                datasetId: params.dataset_id,
                graphVersion: params.version_number,
                nodeId: step.node_id,
                runId: job.job_id,
                useSample: kind === 'sample',
              },
              quality,
            ),
          ]
        : []),
    ],
  ).catch(async (error: unknown) => {
    await early.settled();
    throw error;
  });
  return {
    run_id: job.job_id,
    inputs: step.inputs,
    row_count: result.rowCount,
    columns: result.columns,
    data_bytes: (await stat(result.dataPath)).size,
    cpu_seconds: cpuSeconds,
    analysis_depth: depth,
    completed_date: new Date().toISOString(),
    ...(quality ? { quality } : {}),
  };
}
