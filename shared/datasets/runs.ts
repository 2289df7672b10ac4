import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { parseItem } from '../db/items';
import { keys, type EntityKind } from '../db/keys';
import { transactWrite, type TransactItem } from '../db/transactions';
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

const RUN_KIND: EntityKind = 'RECIPE_NODE_RUN';

/** The graph version a run's job builds nodes of (its parameters). */
export interface RunPlace {
  readonly datasetId: number;
  readonly graphVersion: number;
}

/** Why a worker's status write did not hold: the job no longer owns the node's execution. */
async function sendRunning(ref: JobRef, update: NonNullable<TransactItem['Update']>): Promise<void> {
  try {
    await dynamoDocumentClient().send(new UpdateCommand(update));
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new JobSupersededError(ref);
    throw error;
  }
}

const OWNED = 'execution.job_id = :job';

export const nodeRuns = {
  /** The run items of a graph version's nodes, by node id. */
  async list(tenantId: string, datasetId: number, graphVersion: number): Promise<Map<number, StoredNodeRun>> {
    const runs = new Map<number, StoredNodeRun>();
    let cursor: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await dynamoDocumentClient().send(
        new QueryCommand({
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': keys.children(tenantId, 'DATASET', datasetId),
            ':prefix': keys.nodeRunPrefix(graphVersion),
          },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) {
        const run = parseItem(StoredNodeRun, RUN_KIND, item);
        runs.set(run.node_id, run);
      }
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return runs;
  },

  async find(
    tenantId: string,
    datasetId: number,
    graphVersion: number,
    nodeId: number,
  ): Promise<StoredNodeRun | undefined> {
    const result = await dynamoDocumentClient().send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.nodeRun(tenantId, datasetId, graphVersion, nodeId),
        ConsistentRead: true,
      }),
    );
    return result.Item ? parseItem(StoredNodeRun, RUN_KIND, result.Item) : undefined;
  },

  /**
   * The worker starts building `nodeId`: its output of `kind` stops being current at once
   * (its files are about to be rewritten), and the target's item names the node.
   */
  async startNode(ref: JobRef, at: RunPlace, target: number, nodeId: number, kind: OutputKind): Promise<void> {
    const output = outputAttribute(kind);
    const owned = { ':job': ref.job_id, ':running': 'IN_PROGRESS' };
    const onTarget = {
      TableName: config.tableName,
      Key: ref.subject,
      UpdateExpression: `SET current_node = :node${nodeId === target ? ` REMOVE ${output}` : ''}`,
      ConditionExpression: `${OWNED} AND execution.#status = :running`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ...owned, ':node': nodeId },
    };
    if (nodeId === target) return sendRunning(ref, onTarget);
    const now = new Date().toISOString();
    const outcome = await transactWrite([
      {
        Update: {
          TableName: config.tableName,
          Key: keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
          UpdateExpression: `SET execution.#status = :running, execution.started_date = if_not_exists(execution.started_date, :now), execution.heartbeat_date = :now, execution.progress = :progress REMOVE ${output}`,
          ConditionExpression: `${OWNED} AND execution.#status IN (:pending, :running)`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ...owned,
            ':pending': 'PENDING',
            ':now': now,
            ':progress': { stage: 'RUNNING', percent: 0 },
          },
        },
      },
      { Update: onTarget },
    ]);
    if (!outcome.committed) throw new JobSupersededError(ref);
  },

  /** A node other than the target is built: its output of `kind` is current from now on. */
  async finishNode(ref: JobRef, at: RunPlace, nodeId: number, kind: OutputKind, output: NodeOutput): Promise<void> {
    const now = new Date().toISOString();
    await sendRunning(ref, {
      TableName: config.tableName,
      Key: keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
      UpdateExpression: `SET execution.#status = :done, execution.ended_date = :now, execution.heartbeat_date = :now, execution.progress = :progress, ${outputAttribute(kind)} = :output`,
      ConditionExpression: `${OWNED} AND execution.#status = :running`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':job': ref.job_id,
        ':running': 'IN_PROGRESS',
        ':done': 'COMPLETED',
        ':now': now,
        ':progress': { stage: 'DONE', percent: 100, rows: output.row_count },
        ':output': output,
      },
    });
  },

  /** A node other than the target failed: its own execution says why (the job's error goes to the target). */
  async failNode(ref: JobRef, at: RunPlace, nodeId: number, error: JobError): Promise<void> {
    const now = new Date().toISOString();
    try {
      await sendRunning(ref, {
        TableName: config.tableName,
        Key: keys.nodeRun(ref.tenant_id, at.datasetId, at.graphVersion, nodeId),
        UpdateExpression:
          'SET execution.#status = :failed, execution.ended_date = :now, execution.heartbeat_date = :now, execution.#error = :error',
        ConditionExpression: `${OWNED} AND execution.#status IN (:pending, :running)`,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':job': ref.job_id,
          ':pending': 'PENDING',
          ':running': 'IN_PROGRESS',
          ':failed': 'FAILED',
          ':now': now,
          ':error': error,
        },
      });
    } catch (superseded) {
      if (!(superseded instanceof JobSupersededError)) throw superseded;
      // Already ended (or taken over): nothing left to record.
    }
  },
};
