import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { deletePrefix, downloadFile, putFile, putJson } from '../../shared/aws/data-bucket';
import { VERSION_FILES, versionPrefix } from '../../shared/data-tables/storage';
import { recipeRunJob, type BuildStep } from '../../shared/datasets/jobs';
import {
  outputAttribute,
  outputKindOf,
  type NodeOutput,
  type OutputKind,
  type RunSource,
  type StoredNodeRun,
} from '../../shared/datasets/run-items';
import { NODE_OUTPUT_FILES, nodeOutputPrefix } from '../../shared/datasets/run-storage';
import { nodeRuns, type RunPlace } from '../../shared/datasets/runs';
import { DEFAULT_PREVIEW_ROWS } from '../../shared/engine/csv-import';
import { recipeEngineFor, type RecipeEngine } from '../../shared/engine/recipe-engines';
import type { RecipeFolders, RecipeRunResult, RecipeSource } from '../../shared/engine/recipe-run';
import { AppError, isAppError } from '../../shared/errors/app-error';
import { jobErrorOf } from '../../shared/jobs/failure';
import type { JobRef } from '../../shared/jobs/job-ref';
import { EarlyUploads } from '../../shared/jobs/early-uploads';
import { jobWorker, type JobOutcome, type JobStep } from '../../shared/jobs/worker-step';
import { logger } from '../../shared/log';
import { recipeStore } from '../../shared/recipes/store';
import { recipeVersions } from '../../shared/recipes/versions';
import { recordUsage } from '../../shared/usage';
import type * as z from 'zod';

/**
 * The recipe-run step: builds each planned node in order (upstream first) and marks it
 * COMPLETED with its output; the node the run was asked for is last, and the job's own
 * completion records its output. A node's output stops being current when its build starts
 * (runs.ts startNode), so a failed build never leaves one that reads as current; its files
 * are removed too. The build's reads (inputs, recipe) and its engine's start go out together
 * with that status write, and its writes (output files, CPU usage) together: a run's time is
 * its data's, not a queue of round trips.
 */
type RunParams = z.output<typeof recipeRunJob.params>;

export const handler = jobWorker(recipeRunJob, { stage: 'RUNNING', percent: 0 }, (step) =>
  withoutInternals(step.job, () => runBuild(step)),
);

async function runBuild({
  job,
  params,
  pulse,
  workDir,
}: JobStep<RunParams>): Promise<JobOutcome<{ readonly row_count: number }>> {
  const at: RunPlace = { datasetId: params.dataset_id, graphVersion: params.version_number };
  const kind = outputKindOf(params.use_sample);
  // Only upstream steps are skipped (below); a run of one node has none, and no need to read.
  const runs =
    params.build.length > 1
      ? await nodeRuns.list(job.tenant_id, at.datasetId, at.graphVersion)
      : new Map<number, StoredNodeRun>();
  let target: NodeOutput | undefined;
  for (const [index, step] of params.build.entries()) {
    const earlier = runs.get(step.node_id);
    // A retried worker keeps what an earlier attempt of the same job built.
    if (
      step.node_id !== params.node_id &&
      earlier?.execution.job_id === job.job_id &&
      earlier.execution.status === 'COMPLETED'
    )
      continue;
    // The first stage is the one the worker wrote when it picked the job up.
    if (index > 0) await pulse.stage({ stage: 'RUNNING', percent: Math.floor((100 * index) / params.build.length) });
    const started = nodeRuns.startNode(job, at, params.node_id, step.node_id, kind);
    const output = await buildOrFail(job, params, step, kind, join(workDir, `node-${step.node_id}`), started);
    if (step.node_id === params.node_id) target = output;
    else await nodeRuns.finishNode(job, at, step.node_id, kind, output);
    pulse.throwIfAborted();
  }
  if (!target) throw new AppError('10-500', { extraDetails: { cause: 'the run did not build its node' } });
  return {
    progress: { stage: 'DONE', percent: 100, rows: target.row_count },
    fields: { [outputAttribute(kind)]: target },
    output: { row_count: target.row_count },
  };
}

/** No internals reach the user: a failure that is no catalogue error is 10-500 without a cause (the log keeps it). */
async function withoutInternals<T>(job: JobRef, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asCatalogueError(job, error);
  }
}

/** A catalogue error as it is; the job losing its execution as it is; anything else 10-500, logged. */
function asCatalogueError(job: JobRef, error: unknown): unknown {
  if (isAppError(error) || (error as Error).name === 'Job.Superseded') return error;
  logger.error('recipe run failed', { jobId: job.job_id, error: error as Error });
  return new AppError('10-500');
}

/**
 * Builds one node once `started` (its status write) lands; on failure its files go, and a node
 * other than the target records the error itself. A node that could not be started has
 * nothing to undo: its failure is the run's as it is.
 */
async function buildOrFail(
  job: JobRef,
  params: RunParams,
  step: BuildStep,
  kind: OutputKind,
  dir: string,
  started: Promise<void>,
): Promise<NodeOutput> {
  const prefix = nodeOutputPrefix(job.tenant_id, params.dataset_id, params.version_number, step.node_id, kind);
  try {
    return await buildNode(job, params, step, kind, dir, prefix, started);
  } catch (caught) {
    if (
      !(await started.then(
        () => true,
        () => false,
      ))
    )
      throw caught;
    const error = asCatalogueError(job, caught);
    if (!isAppError(error)) throw error;
    await deletePrefix(prefix).catch((cleanup: unknown) =>
      logger.warn('cleanup of a failed node build failed', { jobId: job.job_id, error: cleanup as Error }),
    );
    if (step.node_id !== params.node_id) {
      await nodeRuns.failNode(
        job,
        { datasetId: params.dataset_id, graphVersion: params.version_number },
        step.node_id,
        jobErrorOf(error),
      );
    }
    throw error;
  }
}

/** Where an alias's rows are: a data version's Parquet, or the upstream node's output of the same kind. */
function sourceKey(
  job: JobRef,
  params: RunParams,
  source: RunSource,
  kind: OutputKind,
): { key: string; missing: AppError } {
  if (source.data_table_id !== undefined && source.data_version_number !== undefined) {
    const file = kind === 'sample' ? VERSION_FILES.sample : VERSION_FILES.data;
    return {
      key: versionPrefix(job.tenant_id, source.data_table_id, source.data_version_number) + file,
      missing: new AppError('20-1059', { params: [source.data_table_id, source.data_version_number] }),
    };
  }
  return {
    key:
      nodeOutputPrefix(job.tenant_id, params.dataset_id, params.version_number, source.node_id, kind) +
      NODE_OUTPUT_FILES.data,
    missing: new AppError('20-1039', {
      params: [`${params.dataset_id}/${params.version_number}/${source.node_id}/${kind}`],
    }),
  };
}

async function download(key: string, path: string, missing: AppError): Promise<void> {
  try {
    await downloadFile(key, path);
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') throw missing;
    throw error;
  }
}

/** The node's inputs in `inDir`: each alias's Parquet downloaded from the data bucket. */
async function downloadSources(
  job: JobRef,
  params: RunParams,
  step: BuildStep,
  kind: OutputKind,
  inDir: string,
): Promise<RecipeSource[]> {
  await mkdir(inDir, { recursive: true });
  return Promise.all(
    step.inputs.sources.map(async (source, index) => {
      const { key, missing } = sourceKey(job, params, source, kind);
      const path = join(inDir, `source-${index}.parquet`);
      await download(key, path, missing);
      return { alias: source.alias, path };
    }),
  );
}

async function buildNode(
  job: JobRef,
  params: RunParams,
  step: BuildStep,
  kind: OutputKind,
  dir: string,
  prefix: string,
  started: Promise<void>,
): Promise<NodeOutput> {
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  // The inputs download while the start is written, the recipe is read and the engine starts
  // (it takes their promise). Nothing is written under the node's prefix before `started` lands.
  const sources = downloadSources(job, params, step, kind, inDir);
  const downloaded = sources.then(
    () => undefined,
    () => undefined,
  );
  try {
    const [, [recipe, version]] = await allSettled([
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
    return await builtOutput(
      job,
      params,
      step,
      recipeEngineFor(recipe.data.language),
      version.code,
      sources,
      { inDir, outDir, spillDir: join(dir, 'spill') },
      prefix,
    );
  } finally {
    // No download outlives the build that started it.
    await downloaded;
  }
}

/**
 * Runs the engine and writes the output's files beside the run's CPU usage: the data file as
 * soon as the engine has written it, the preview and schema as soon as it has described it
 * (each while the engine goes on), the analysis last. Every upload settles before a failure
 * goes on to the build's clean-up, which removes them.
 */
async function builtOutput(
  job: JobRef,
  params: RunParams,
  step: BuildStep,
  engine: RecipeEngine,
  code: string,
  sources: Promise<readonly RecipeSource[]>,
  folders: RecipeFolders,
  prefix: string,
): Promise<NodeOutput> {
  const depth = params.schema_analysis_depth;
  const early = new EarlyUploads();
  const uploadData = (dataPath: string) =>
    early.start('data', () => putFile(prefix + NODE_OUTPUT_FILES.data, dataPath, 'application/vnd.apache.parquet'));
  const uploadDescription = ({ columns, previewRows }: Pick<RecipeRunResult, 'columns' | 'previewRows'>) =>
    early.start('description', () =>
      allSettled([
        putJson(prefix + NODE_OUTPUT_FILES.preview, previewRows),
        putJson(prefix + NODE_OUTPUT_FILES.schema, columns),
      ]),
    );
  const options = {
    previewRows: DEFAULT_PREVIEW_ROWS,
    analysisDepth: depth,
    onData: uploadData,
    onDescribed: uploadDescription,
  };
  const { result, cpuSeconds } = await withCpuCounted(
    job.tenant_id,
    () => engine.run(code, sources, folders, options),
    // An engine that did not tell (no early uploads) has its files uploaded here.
    (result) => [
      early.started('data') ?? uploadData(result.dataPath),
      early.started('description') ?? uploadDescription(result),
      putJson(prefix + NODE_OUTPUT_FILES.analysis(depth), result.analysis),
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
  };
}

/**
 * Runs `work`, then the writes `store` starts with its result, and counts the worker's CPU time
 * of the work in the tenant's monthly usage, whether it succeeds or fails (DuckDB's threads are
 * the process's, so they are counted too, as is the end of the inputs' download the engine
 * waits for). The usage is written together with the result.
 */
async function withCpuCounted<T>(
  tenantId: string,
  work: () => Promise<T>,
  store: (value: T) => Promise<void>[],
): Promise<{ readonly result: T; readonly cpuSeconds: number }> {
  const before = process.cpuUsage();
  const seconds = () => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  };
  let cpuSeconds: number | undefined;
  try {
    const result = await work();
    cpuSeconds = seconds();
    await allSettled([recordUsage(tenantId, 'CPU_SECONDS', cpuSeconds), ...store(result)]);
    return { result, cpuSeconds };
  } catch (error) {
    // Once the work is done, its usage was written beside the result (or its write failed, and is not tried twice).
    if (cpuSeconds !== undefined) throw error;
    await recordUsage(tenantId, 'CPU_SECONDS', seconds()).catch((usage: unknown) =>
      logger.warn('CPU usage of a failed run not recorded', { error: usage as Error }),
    );
    throw error;
  }
}

/**
 * Promise.all that waits for every promise to settle before it throws the first failure (in
 * the order given), so that no download or write outlives the build that started it.
 */
async function allSettled<T extends readonly unknown[] | []>(
  values: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled<readonly unknown[]>(values);
  const fulfilled: unknown[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
    fulfilled.push(outcome.value);
  }
  return fulfilled as { -readonly [P in keyof T]: Awaited<T[P]> };
}
