import { allOf, is, type Changes, type Condition } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys, type ItemKey } from '../db/keys';
import { updateItem } from '../db/table';
import { transactWrite, tx } from '../db/transactions';
import type { JobRef } from '../jobs/job-ref';
import { JobSupersededError } from '../jobs/status';
import type { JobError } from '../model/job';
import { StoredNodeRun, outputAttribute, type NodeOutput, type OutputKind } from './run-items';

/**
 * The run state of recipe nodes (run-items.ts): reading it, and the status writes a run's
 * worker makes per node (run-queue.ts queues runs). The job's own status (shared/jobs/status.ts) is the target node's
 * `execution`; the other nodes it builds carry an execution of the same job that the worker
 * moves itself, every write conditional on the job still owning it.
 */

/** A recipe node's run item: what reads parse and what writes are checked with. */
export const nodeRunItems = new ItemType('RECIPE_NODE_RUN', StoredNodeRun);

/** The graph version a run's job builds nodes of (its parameters). */
export interface RunPlace {
  readonly datasetId: number;
  readonly graphVersion: number;
}

/** A worker's status write; JobSupersededError when the job no longer owns the node's execution. */
async function writeRunning(ref: JobRef, key: ItemKey, changes: Changes, when: Condition): Promise<void> {
  if (!(await updateItem(key, nodeRunItems.changes(changes), when))) throw new JobSupersededError(ref);
}

/** The job still owns the node's execution, in one of these statuses. */
const owned = (ref: JobRef, ...statuses: string[]): Condition =>
  allOf(is.equal('execution.job_id', ref.job_id), is.oneOf('execution.status', statuses));

export const nodeRuns = {
  /** The run items of a graph version's nodes, by node id. */
  async list(tenantId: string, datasetId: number, graphVersion: number): Promise<Map<number, StoredNodeRun>> {
    const runs = await nodeRunItems.query(
      keys.children(tenantId, 'DATASET', datasetId),
      keys.nodeRunPrefix(graphVersion),
    );
    return new Map(runs.map((run) => [run.node_id, run]));
  },

  find(tenantId: string, datasetId: number, graphVersion: number, nodeId: number): Promise<StoredNodeRun | undefined> {
    return nodeRunItems.find(keys.nodeRun(tenantId, datasetId, graphVersion, nodeId));
  },

  /**
   * The worker starts building `nodeId`: its output of `kind` stops being current at once
   * (its files are about to be rewritten), and the target's item names the node.
   */
  async startNode(ref: JobRef, at: RunPlace, target: number, nodeId: number, kind: OutputKind): Promise<void> {
    const output = outputAttribute(kind);
    const onTarget = nodeRunItems.changes({ set: { current_node: nodeId }, remove: nodeId === target ? [output] : [] });
    const running = owned(ref, 'IN_PROGRESS');
    if (nodeId === target) return writeRunning(ref, ref.subject, onTarget, running);
    const now = new Date().toISOString();
    const outcome = await transactWrite([
      tx.update(
        keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
        nodeRunItems.changes({
          set: {
            'execution.status': 'IN_PROGRESS',
            'execution.heartbeat_date': now,
            'execution.progress': { stage: 'RUNNING', percent: 0 },
          },
          setIfAbsent: { 'execution.started_date': now },
          remove: [output],
        }),
        { when: owned(ref, 'PENDING', 'IN_PROGRESS') },
      ),
      tx.update(ref.subject, onTarget, { when: running }),
    ]);
    if (!outcome.committed) throw new JobSupersededError(ref);
  },

  /** A node other than the target is built: its output of `kind` is current from now on. */
  async finishNode(ref: JobRef, at: RunPlace, nodeId: number, kind: OutputKind, output: NodeOutput): Promise<void> {
    const now = new Date().toISOString();
    await writeRunning(
      ref,
      keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
      {
        set: {
          'execution.status': 'COMPLETED',
          'execution.ended_date': now,
          'execution.heartbeat_date': now,
          'execution.progress': { stage: 'DONE', percent: 100, rows: output.row_count },
          [outputAttribute(kind)]: output,
        },
      },
      owned(ref, 'IN_PROGRESS'),
    );
  },

  /**
   * The job was cancelled (its target is ABORTED): the nodes it had not finished are ABORTED
   * too, each only while the job still owns it, so none reads as queued or running and a late
   * write of the worker is refused.
   */
  async abortNodes(ref: JobRef, at: RunPlace, nodeIds: readonly number[], error: JobError): Promise<void> {
    const now = new Date().toISOString();
    const aborted = {
      'execution.status': 'ABORTED',
      'execution.ended_date': now,
      'execution.heartbeat_date': now,
      'execution.error': error,
    };
    await Promise.all(
      nodeIds.map((nodeId) =>
        updateItem(
          keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
          nodeRunItems.changes({ set: aborted }),
          owned(ref, 'PENDING', 'IN_PROGRESS'),
        ),
      ),
    );
  },

  /** A node other than the target failed: its own execution says why (the job's error goes to the target). */
  async failNode(ref: JobRef, at: RunPlace, nodeId: number, error: JobError): Promise<void> {
    const now = new Date().toISOString();
    const failed = {
      'execution.status': 'FAILED',
      'execution.ended_date': now,
      'execution.heartbeat_date': now,
      'execution.error': error,
    };
    try {
      await writeRunning(
        ref,
        keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
        { set: failed },
        owned(ref, 'PENDING', 'IN_PROGRESS'),
      );
    } catch (superseded) {
      if (!(superseded instanceof JobSupersededError)) throw superseded;
      // Already ended (or taken over): nothing left to record.
    }
  },
};
