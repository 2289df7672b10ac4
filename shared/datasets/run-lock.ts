import { config } from '../config';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { transactWrite, tx, type TransactItem } from '../db/transactions';
import { AppError } from '../errors/app-error';
import { stillStopping } from '../jobs/cancel';
import type { JobRef } from '../jobs/job-ref';
import { markFailed } from '../jobs/status';
import { executionView, isRunning } from '../jobs/view';
import { recipeRunJob } from './jobs';
import { RunLock, type ActiveRun } from './run-items';
import { nodeRunItems } from './runs';

/** A graph version's run lock item. */
export const runLockItems = new ItemType('GRAPH_RUN_LOCK', RunLock);

/**
 * One recipe-run job at a time per graph version, and no edit of the graph while it runs
 * (spec 3.3: 20-1034), nor of a recipe version a running node uses (20-1048). The job holds
 * the graph version's lock item (JobRef.lock): the status writes release it when the job
 * ends, in the same transaction as its final status. Graph writes carry `noActiveRun` in
 * their transaction, so an edit and a run start cannot both commit. A run whose worker went
 * silent (no heartbeat: a crash, a lost state machine) is failed with 10-1047 and frees the
 * lock the first time something waits on it.
 */

/** The job of a run: its status is the target node's run item's `execution`. */
export function recipeRunJobRef(tenantId: string, datasetId: number, graphVersion: number, active: ActiveRun): JobRef {
  return {
    tenant_id: tenantId,
    job_id: active.job_id,
    kind: recipeRunJob.name,
    subject: keys.nodeRun(tenantId, datasetId, graphVersion, active.node_id),
    attribute: 'execution',
    lock: keys.graphRunLock(tenantId, datasetId, graphVersion),
  };
}

/** For a graph write's transaction: no run may hold the version (a missing lock item is free). */
export function noActiveRun(tenantId: string, datasetId: number, graphVersion: number): TransactItem {
  return tx.check(keys.graphRunLock(tenantId, datasetId, graphVersion), is.absent('active_job'));
}

/**
 * The run that holds the graph version, if one is alive. A holder whose worker went silent is
 * failed (10-1047), and a lock whose job has ended is released, so neither blocks anyone.
 */
export async function liveRun(
  tenantId: string,
  datasetId: number,
  graphVersion: number,
): Promise<ActiveRun | undefined> {
  const active = (await runLockItems.find(keys.graphRunLock(tenantId, datasetId, graphVersion)))?.active_job;
  if (!active) return undefined;
  const ref = recipeRunJobRef(tenantId, datasetId, graphVersion, active);
  const execution = (await nodeRunItems.find(ref.subject))?.execution;
  const now = Date.now();
  if (execution?.job_id === active.job_id && isRunning(execution, now, config.jobInactivitySeconds)) return active;
  // A cancelled run keeps the version while its worker stops: a run started now could get its late uploads.
  if (execution?.job_id === active.job_id && stillStopping(execution, now)) return active;
  const error =
    execution?.job_id === active.job_id ? executionView(execution, now, config.jobInactivitySeconds).error : undefined;
  if (error && (await markFailed(ref, error))) return undefined;
  // The job ended without releasing the lock, or its status is gone: release it directly.
  await transactWrite([
    tx.update(
      keys.graphRunLock(tenantId, datasetId, graphVersion),
      { remove: ['active_job'] },
      { when: is.equal('active_job.job_id', active.job_id) },
    ),
  ]);
  return undefined;
}

/** After a graph write failed on `noActiveRun`: 20-1034 naming the node being run, unless the run was dead (then retry). */
export async function refuseWhileRunning(tenantId: string, datasetId: number, graphVersion: number): Promise<void> {
  const active = await liveRun(tenantId, datasetId, graphVersion);
  if (active) throw new AppError('20-1034', { params: [active.node_id] });
}

/** A recipe node's place: what a recipe version's use records (recipes/usages.ts). */
export interface NodePlace {
  readonly dataset_id: number;
  readonly version_number: number;
  readonly node_id: number;
}

/** The first of these nodes that a live run is building (or will build), if any. */
export async function runningNodeAmong(tenantId: string, places: readonly NodePlace[]): Promise<number | undefined> {
  const byGraph = new Map<string, NodePlace[]>();
  for (const place of places) {
    const graph = `${place.dataset_id}/${place.version_number}`;
    byGraph.set(graph, [...(byGraph.get(graph) ?? []), place]);
  }
  for (const nodes of byGraph.values()) {
    const { dataset_id: datasetId, version_number: graphVersion } = nodes[0]!;
    const active = await liveRun(tenantId, datasetId, graphVersion);
    const running = active && nodes.find((place) => active.node_ids.includes(place.node_id));
    if (running) return running.node_id;
  }
  return undefined;
}
