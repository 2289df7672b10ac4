import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { parseItem } from '../db/items';
import { keys } from '../db/keys';
import { transactWrite, type TransactItem } from '../db/transactions';
import { AppError } from '../errors/app-error';
import type { JobRef } from '../jobs/job-ref';
import { markFailed } from '../jobs/status';
import { executionView, isRunning } from '../jobs/view';
import { RunLock, StoredNodeRun, type ActiveRun } from './run-items';

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
    kind: 'recipe-run',
    subject: keys.nodeRun(tenantId, datasetId, graphVersion, active.node_id),
    attribute: 'execution',
    lock: keys.graphRunLock(tenantId, datasetId, graphVersion),
  };
}

/** For a graph write's transaction: no run may hold the version (a missing lock item is free). */
export function noActiveRun(tenantId: string, datasetId: number, graphVersion: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: config.tableName,
      Key: keys.graphRunLock(tenantId, datasetId, graphVersion),
      ConditionExpression: 'attribute_not_exists(active_job)',
    },
  };
}

async function getItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
  return (
    await dynamoDocumentClient().send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }))
  ).Item;
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
  const lockItem = await getItem(keys.graphRunLock(tenantId, datasetId, graphVersion));
  const active = lockItem ? parseItem(RunLock, 'GRAPH_RUN_LOCK', lockItem).active_job : undefined;
  if (!active) return undefined;
  const ref = recipeRunJobRef(tenantId, datasetId, graphVersion, active);
  const targetItem = await getItem(ref.subject);
  const execution = targetItem ? parseItem(StoredNodeRun, 'RECIPE_NODE_RUN', targetItem).execution : undefined;
  const now = Date.now();
  if (execution?.job_id === active.job_id && isRunning(execution, now, config.jobInactivitySeconds)) return active;
  const error =
    execution?.job_id === active.job_id ? executionView(execution, now, config.jobInactivitySeconds).error : undefined;
  if (error && (await markFailed(ref, error))) return undefined;
  // The job ended without releasing the lock, or its status is gone: release it directly.
  await transactWrite([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.graphRunLock(tenantId, datasetId, graphVersion),
        UpdateExpression: 'REMOVE active_job',
        ConditionExpression: 'active_job.job_id = :job',
        ExpressionAttributeValues: { ':job': active.job_id },
      },
    },
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
