import { join } from 'node:path';
import { AppError, isAppError } from '../errors/app-error';
import { jobErrorOf } from '../jobs/failure';
import type { JobRef } from '../jobs/job-ref';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import { deletePrefix } from '../aws/data-bucket';
import { logger } from '../log';
import { refreshLineage } from './lineage/graph-lineage';
import {
  ATHENA_HANDOFF_KEY,
  ATHENA_QUERY_TIMEOUT_SECONDS,
  AthenaHandoff,
  AthenaOutcome,
} from '../engine/athena/handoff';
import { buildNode, type BuiltNode, type NodeBuild, type ResumedQuery, type RunParams } from './recipe-node-build';
import { outputAttribute, outputKindOf, type NodeOutput, type StoredNodeRun } from './run-items';
import { nodeOutputPrefix } from './run-storage';
import { nodeRuns, type RunPlace } from './runs';

/**
 * The recipe-run job's work (functions/jobs/run-recipe.ts): builds each planned node in order (upstream first) and marks it
 * COMPLETED with its output; the node the run was asked for is last, and the job's own
 * completion records its output. A node's output stops being current when its build starts
 * (runs.ts startNode), so a failed build never leaves one that reads as current; its files
 * are removed too. The build's reads (inputs, recipe) and its engine's start go out together
 * with that status write, and its writes (output files, CPU usage) together: a run's time is
 * its data's, not a queue of round trips.
 */
/**
 * What a call of the step answers: the run's rows when it is done, or a trino-sql node's query
 * handed to the machine, which calls the step again with its outcome (engine/athena/handoff.ts).
 */
export type RunStepOutput = { readonly row_count: number } | { readonly [ATHENA_HANDOFF_KEY]: AthenaHandoff };

/** The machine waits this long at most for a handed query: its state's timeout and its retries' backoff. */
const HANDOFF_WAIT_SECONDS = ATHENA_QUERY_TIMEOUT_SECONDS + 120;

/** Builds the run's nodes, its own last; no internals reach the user (withoutInternals). */
export function runRecipeBuild(step: JobStep<RunParams>): Promise<JobOutcome<RunStepOutput>> {
  return withoutInternals(step.job, () => buildAll(step));
}

/** The query the machine ran for the previous call, read back from the step's input; 10-500 if it is not one. */
function resumedQuery(resumed: JobStep<RunParams>['resumed']): ResumedQuery | undefined {
  if (!resumed) return undefined;
  const handoff = AthenaHandoff.safeParse(
    (resumed.handed as Record<string, unknown> | undefined)?.[ATHENA_HANDOFF_KEY],
  );
  const outcome = AthenaOutcome.safeParse(resumed.outcome);
  if (!handoff.success || !outcome.success)
    throw new AppError('10-500', { extraDetails: { cause: 'the machine resumed the run without a query it handed' } });
  return { handoff: handoff.data, outcome: outcome.data };
}

async function buildAll({
  job,
  params,
  pulse,
  workDir,
  resumed,
}: JobStep<RunParams>): Promise<JobOutcome<RunStepOutput>> {
  const at: RunPlace = { datasetId: params.dataset_id, graphVersion: params.version_number };
  const kind = outputKindOf(params.use_sample);
  // Only upstream steps are skipped (below); a run of one node has none, and no need to read.
  const runs =
    params.build.length > 1
      ? await nodeRuns.list(job.tenant_id, at.datasetId, at.graphVersion)
      : new Map<number, StoredNodeRun>();
  // A resumed run goes on at the node whose query the machine ran: the nodes before it are built.
  const resume = resumedQuery(resumed);
  // Column lineage traced at run time too (docs/lineage.md): the run's OpenLineage events read it from the version.
  if (!resume) await refreshLineage(job.tenant_id, at.datasetId, at.graphVersion);
  const from = resume ? params.build.findIndex((step) => step.node_id === resume.handoff.node_id) : 0;
  if (from < 0) throw new AppError('10-500', { extraDetails: { cause: 'the resumed query is of no node of the run' } });
  let target: NodeOutput | undefined;
  for (const [index, step] of params.build.entries()) {
    if (index < from) continue;
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
    const dir = join(workDir, `node-${step.node_id}`);
    const prefix = nodeOutputPrefix(job.tenant_id, at.datasetId, at.graphVersion, step.node_id, kind);
    const built = await buildOrFail(
      { job, params, step, kind, dir, prefix, signal: pulse.signal, resumed: index === from ? resume : undefined },
      started,
    );
    if ('handoff' in built)
      return {
        progress: { stage: 'RUNNING', percent: Math.floor((100 * index) / params.build.length) },
        output: { [ATHENA_HANDOFF_KEY]: built.handoff },
        continues: { forSeconds: HANDOFF_WAIT_SECONDS },
      };
    const { output } = built;
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
async function buildOrFail(build: NodeBuild, started: Promise<void>): Promise<BuiltNode> {
  const { job, params, step, prefix } = build;
  try {
    return await buildNode(build, started);
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
