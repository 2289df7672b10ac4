import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { keys } from '../db/keys';
import { graphs } from '../datasets/graphs';
import { startNodeRun } from '../datasets/node-run-start';
import { releasableOutputOf, releaseGraph } from '../datasets/release';
import type { RunParams } from '../datasets/recipe-node-build';
import { liveRun } from '../datasets/run-lock';
import type { RunRequest } from '../datasets/run-queue';
import { nodeRuns } from '../datasets/runs';
import { AppError, isAppError, notFound } from '../errors/app-error';
import { logger } from '../log';
import { assertQuotaAllowsStart } from '../quota/enforcement';
import { scheduleRunItems, settleRun } from './history';
import type { ScheduleEntity } from './store';

/**
 * A released schedule's build (docs/schedules.md, docs/decisions.md): a release freezes its
 * outputs, so a tick rebuilds the released graph into a new release, as a user would. It
 * clones the newest released graph version (the "new version from" operation), builds the
 * clone whole on full data as a user's start does (quota, run lock, upstream first), and once
 * the build is COMPLETED releases it through the user's release (its checks, and 90-1002 when
 * an output failed an `error` data-quality rule): the old release stays until the new one is
 * made. The release happens where the build ends, in the recipe-run worker's completion
 * (releaseScheduledBuild), which settles the history entry: SUCCEEDED only when released.
 */

/** Where a scheduled build is: the graph version it builds and its output node. */
export interface BuildPlace {
  readonly graph_version_number: number;
  readonly node_id: number;
}

/** The dataset's newest released graph version (10-404 when none is). */
async function newestReleased(tenantId: string, datasetId: number) {
  const released = (await graphs.list(tenantId, datasetId)).filter((graph) => graph.release_status).at(-1);
  if (!released) throw notFound('released transformation graph of dataset', datasetId);
  return released;
}

/**
 * The schedule's release build still running, if one is: its own overlap rule's "a build of
 * that version" (each build has a version of its own, so the rule is about the last one).
 */
export async function runningReleaseBuild(tenantId: string, schedule: ScheduleEntity): Promise<BuildPlace | undefined> {
  const entries = await scheduleRunItems.query(
    keys.children(tenantId, 'SCHEDULE', schedule.id),
    keys.SCHEDULE_RUN_PREFIX,
  );
  const last = entries.filter((entry) => entry.release && entry.outcome === 'STARTED').at(-1);
  if (!last || last.graph_version_number === null || last.node_id === null) return undefined;
  const running = await liveRun(tenantId, last.dataset_id, last.graph_version_number);
  return running && { graph_version_number: last.graph_version_number, node_id: last.node_id };
}

/**
 * Starts the release build of history entry `runId`: the clone of the newest released
 * version, and its build. A start refused after the clone was made deletes the clone again,
 * so a refused tick leaves nothing behind.
 */
export async function startReleaseBuild(
  principal: Principal,
  schedule: ScheduleEntity,
  runId: string,
): Promise<BuildPlace & { readonly job_id: string | null }> {
  const { tenantId } = principal;
  const released = await newestReleased(tenantId, schedule.data.dataset_id);
  const output = releasableOutputOf(released);
  // Refused before the clone is made, so a quota refusal writes nothing.
  await assertQuotaAllowsStart(tenantId);
  const clone = await graphs.create(tenantId, actorOf(principal), released.dataset_id, released.version_number);
  const place = { graph_version_number: clone.version_number, node_id: output.id };
  try {
    // startNodeRun hands the request to the job as its parameters, release_for with it (datasets/jobs.ts).
    const request: RunRequest & Pick<RunParams, 'release_for'> = {
      use_sample: false,
      schema_analysis_depth: 'SHALLOW',
      release_for: { schedule_id: schedule.id, run_id: runId },
    };
    const status = await startNodeRun(
      principal,
      { dataset_id: clone.dataset_id, version_number: clone.version_number, node_id: output.id },
      request,
    );
    return { ...place, job_id: status.execution?.job_id ?? null };
  } catch (error) {
    await graphs
      .remove(tenantId, clone.dataset_id, clone.version_number)
      .catch((cleanup: unknown) =>
        logger.warn('clone of a refused scheduled build not deleted', { tenantId, error: cleanup as Error }),
      );
    throw error;
  }
}

/**
 * The recipe-run worker's completion (functions/jobs/run-recipe.ts): a release build's
 * version is released as its schedule's principal, who ran it, and its history entry
 * settled: SUCCEEDED, or FAILED with the release's refusal (90-1002 for a data-quality rule,
 * 20-1021 for an output that changed meanwhile). Never throws: the run itself has succeeded.
 */
export async function releaseScheduledBuild(step: {
  readonly job: { readonly tenant_id: string; readonly job_id: string };
  readonly params: {
    readonly dataset_id: number;
    readonly version_number: number;
    readonly node_id: number;
    readonly release_for?: { readonly schedule_id: number; readonly run_id: string } | undefined;
  };
}): Promise<void> {
  const { job, params } = step;
  const entry = params.release_for;
  if (!entry) return;
  const tenantId = job.tenant_id;
  try {
    const run = await nodeRuns.find(tenantId, params.dataset_id, params.version_number, params.node_id);
    if (!run) throw new AppError('10-500', { cause: new Error('the build’s run item is gone') });
    await releaseGraph(tenantId, run.run_by, params.dataset_id, params.version_number);
    await settleRun(tenantId, entry, 'STARTED', { outcome: 'SUCCEEDED' });
  } catch (caught) {
    const error = isAppError(caught) ? caught : new AppError('10-500', { cause: caught });
    logger.warn('scheduled build not released', { tenantId, jobId: job.job_id, code: error.code, error });
    await settleRun(tenantId, entry, 'STARTED', { outcome: 'FAILED', code: error.code, message: error.message }).catch(
      (write: unknown) => logger.error('scheduled build’s outcome not recorded', { tenantId, error: write as Error }),
    );
  }
}
