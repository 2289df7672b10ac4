import type { Actor } from '../db/actor';
import type { RelatedWrite } from '../db/entity-store';
import { allOf, is, type Condition } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys, type ItemKey } from '../db/keys';
import { failedAt, transactWrite, tx, type TransactItem, type TransactionOutcome } from '../db/transactions';
import { AppError, isAppError, notFound, versionConflict } from '../errors/app-error';
import type { StoredNodeLineage } from '../model/stored-lineage';
import { GraphHead, StoredGraph, type StoredNode } from './items';
import { tableUseWrites, type UseWrite } from './references';
import { noActiveRun, refuseWhileRunning } from './run-lock';
import { datasetStore } from './store';
import { recipeUseWrites } from './usages';

/**
 * A dataset's transformation graph versions (spec 2.8, 3.7, 9.3). Every write here is one
 * transaction: the graph item, the head that numbers the versions, and the counters of what
 * the graph uses (references.ts).
 */

const KIND = 'DATASET';
/** A graph version's item, and the head that numbers the versions: what reads parse and writes are checked with. */
const graphItems = new ItemType('TRANSFORMATION_GRAPH', StoredGraph);
const heads = new ItemType(KIND, GraphHead);
/** Concurrent edits of one graph are retried on a fresh reading this many times, then 10-1006. */
const WRITE_ATTEMPTS = 12;

const headKey = (tenantId: string, datasetId: number): ItemKey => keys.childrenHead(tenantId, KIND, datasetId);
const graphKey = (tenantId: string, datasetId: number, versionNumber: number): ItemKey =>
  keys.version(tenantId, KIND, datasetId, versionNumber);

export const graphNotFound = (datasetId: number, versionNumber: number): AppError =>
  notFound('dataset version', `${datasetId}/${versionNumber}`);

/**
 * Whether a graph may change. The one place for every rule that freezes a graph: released
 * (20-1022). A running recipe node (20-1034) is judged in the write itself: every edit and
 * deletion carries run-lock.ts's `noActiveRun`, last in its transaction.
 */
export function assertEditable(graph: StoredGraph): void {
  if (graph.release_status) throw new AppError('20-1022');
}

/** The put of a graph version's item, while `when` holds. */
function graphPut(tenantId: string, graph: StoredGraph, when: Condition): TransactItem {
  const item = graphItems.attributes(graph, { kind: graphItems.kind, tenant_id: tenantId });
  return tx.put(graphKey(tenantId, graph.dataset_id, graph.version_number), item, { when });
}

function readHead(tenantId: string, datasetId: number): Promise<GraphHead | undefined> {
  return heads.find(headKey(tenantId, datasetId));
}

/** Pauses a little before another attempt, so that racing writers spread out. */
const backOff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));

/**
 * Raises the error of the first related write whose condition failed, counting from `first`;
 * a write whose failure only means "read again" (`retry`) raises nothing.
 */
function raiseRelated(outcome: TransactionOutcome, first: number, writes: readonly UseWrite[]): void {
  writes.forEach((write, index) => {
    if (failedAt(outcome, first + index) && !write.retry) throw write.onConditionFailure();
  });
}

/**
 * Every use a graph write moves: table and version counters, recipe version uses. The
 * dataset's name is read only when a recipe node's use needs it.
 */
async function useWrites(
  tenantId: string,
  before: StoredGraph | undefined,
  after: StoredGraph | undefined,
): Promise<UseWrite[]> {
  const recipes = after?.nodes.some((node) => node.node_type === 'RECIPE') ?? false;
  const name = recipes && after ? ((await datasetStore.find(tenantId, after.dataset_id))?.data.name ?? null) : null;
  return [
    ...tableUseWrites(tenantId, before?.nodes ?? [], after?.nodes ?? []),
    ...recipeUseWrites(tenantId, before, after, name),
  ];
}

/** What one edit of a draft graph version writes (graphs.edit). */
export interface GraphChange<T> {
  readonly nodes: readonly StoredNode[];
  readonly nextNodeId?: number;
  readonly result: T;
  /** Releases the version with this write (20-1022 for every change after it). */
  readonly release?: boolean;
  /** Writes that commit with the graph or not at all. */
  readonly writes?: readonly UseWrite[];
}

export const graphs = {
  find(tenantId: string, datasetId: number, versionNumber: number): Promise<StoredGraph | undefined> {
    return graphItems.find(graphKey(tenantId, datasetId, versionNumber));
  },

  /** The version, or 10-404 naming the dataset when the dataset itself does not exist. */
  async get(tenantId: string, datasetId: number, versionNumber: number): Promise<StoredGraph> {
    const graph = await graphs.find(tenantId, datasetId, versionNumber);
    if (graph) return graph;
    if (!(await readHead(tenantId, datasetId))) throw notFound('dataset', datasetId);
    throw graphNotFound(datasetId, versionNumber);
  },

  /** Every version of the dataset, oldest first; 10-404 when the dataset does not exist. */
  async list(tenantId: string, datasetId: number): Promise<StoredGraph[]> {
    if (!(await readHead(tenantId, datasetId))) throw notFound('dataset', datasetId);
    return graphItems.query(keys.children(tenantId, KIND, datasetId), keys.VERSION_PREFIX);
  },

  /** The newest version of each dataset, by dataset id: heads, then graphs, a BatchGetItem per hundred. */
  async latest(tenantId: string, datasetIds: readonly number[]): Promise<Map<number, StoredGraph>> {
    const found = await heads.findMany(datasetIds.map((id) => headKey(tenantId, id)));
    const wanted: ItemKey[] = [];
    datasetIds.forEach((id, index) => {
      const latest = found[index]?.latest_version;
      if (latest !== undefined) wanted.push(graphKey(tenantId, id, latest));
    });
    const graphsFound = await graphItems.findMany(wanted);
    return new Map(graphsFound.flatMap((graph) => (graph ? [[graph.dataset_id, graph] as const] : [])));
  },

  /** What a new dataset starts with, committed with it: graph version 1, empty and draft. */
  initialWrites(tenantId: string, actor: Actor, datasetId: number): RelatedWrite[] {
    const graph = emptyGraph(actor, datasetId, 1);
    const head: GraphHead = { version_count: 1, live_count: 1, latest_version: 1, empty_version: 1 };
    const put = (item: TransactItem): RelatedWrite => ({
      item,
      onConditionFailure: () =>
        new AppError('10-500', { cause: new Error(`dataset ${datasetId}: its graph items already exist`) }),
    });
    const headItem = heads.attributes(head, { kind: KIND, tenant_id: tenantId });
    return [
      put(tx.put(headKey(tenantId, datasetId), headItem, { when: is.absent('pk') })),
      put(graphPut(tenantId, graph, is.absent('pk'))),
    ];
  },

  /**
   * Creates the next version: empty, or a copy of version `source` (nodes with their ids,
   * bindings, and so edges). The copy is one item written with the head and the counters of
   * its uses, on a reading of the source that must still hold when it commits.
   */
  async create(tenantId: string, actor: Actor, datasetId: number, source: number | undefined): Promise<StoredGraph> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
      const head = await readHead(tenantId, datasetId);
      if (!head) throw notFound('dataset', datasetId);
      const template = source === undefined ? undefined : await graphs.get(tenantId, datasetId, source);
      const versionNumber = head.version_count + 1;
      const graph: StoredGraph = template
        ? {
            ...emptyGraph(actor, datasetId, versionNumber),
            nodes: template.nodes,
            next_node_id: template.next_node_id,
            // Column lineage travels with the copy: its next reading retraces only what moved (docs/lineage.md).
            ...(template.lineage ? { lineage: template.lineage } : {}),
          }
        : emptyGraph(actor, datasetId, versionNumber);
      const empty = graph.nodes.length === 0;
      if (empty && head.empty_version !== undefined) throw new AppError('20-1006');
      const uses = await useWrites(tenantId, undefined, graph);
      const numbered = heads.changes({
        set: {
          version_count: versionNumber,
          latest_version: versionNumber,
          ...(empty ? { empty_version: versionNumber } : {}),
        },
        increment: { live_count: 1 },
      });
      const writes: TransactItem[] = [
        tx.check(keys.entity(tenantId, KIND, datasetId), is.present('pk')),
        tx.update(headKey(tenantId, datasetId), numbered, {
          when: allOf(is.equal('version_count', head.version_count), ...(empty ? [is.absent('empty_version')] : [])),
        }),
        graphPut(tenantId, graph, is.absent('pk')),
        ...(template ? [sourceUnchanged(tenantId, template)] : []),
        ...uses.map((write) => write.item),
      ];
      const outcome = await transactWrite(writes);
      if (outcome.committed) return graph;
      if (failedAt(outcome, 0)) throw notFound('dataset', datasetId);
      raiseRelated(outcome, template ? 4 : 3, uses);
      // The head or the source moved under us (another version, an edit): read again.
      await backOff(attempt);
    }
    throw versionConflict();
  },

  /**
   * Changes a draft version: `change` gets the graph as read and returns its next nodes (or
   * throws the rule it breaks), whether it releases the version, and writes of its own that
   * must commit with it. The write holds only if the graph is still as read (its
   * lock_version); otherwise the change is tried again on a fresh reading, so two concurrent
   * edits are judged one after the other and never break a rule together.
   */
  async edit<T>(
    tenantId: string,
    actor: Actor,
    datasetId: number,
    versionNumber: number,
    change: (graph: StoredGraph, now: string) => GraphChange<T> | Promise<GraphChange<T>>,
  ): Promise<{ readonly graph: StoredGraph; readonly result: T }> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
      const current = await graphs.get(tenantId, datasetId, versionNumber);
      assertEditable(current);
      const now = new Date().toISOString();
      const { nodes, nextNodeId, result, release = false, writes: own = [] } = await change(current, now);
      const graph: StoredGraph = {
        ...current,
        nodes,
        release_status: release,
        next_node_id: nextNodeId ?? current.next_node_id,
        lock_version: current.lock_version + 1,
        last_modified_by: actor,
        last_modified_date: now,
      };
      const wasEmpty = current.nodes.length === 0;
      const isEmpty = nodes.length === 0;
      const uses = [...(await useWrites(tenantId, current, graph)), ...own];
      const emptiness: TransactItem[] =
        wasEmpty === isEmpty
          ? []
          : [
              isEmpty
                ? tx.update(headKey(tenantId, datasetId), heads.changes({ set: { empty_version: versionNumber } }), {
                    when: is.absent('empty_version'),
                  })
                : tx.update(
                    headKey(tenantId, datasetId),
                    { remove: ['empty_version'] },
                    { when: is.equal('empty_version', versionNumber) },
                  ),
            ];
      const writes: TransactItem[] = [
        graphPut(tenantId, graph, is.equal('lock_version', current.lock_version)),
        ...emptiness,
        ...uses.map((write) => write.item),
        noActiveRun(tenantId, datasetId, versionNumber),
      ];
      const outcome = await transactWrite(writes);
      if (outcome.committed) return { graph, result };
      if (failedAt(outcome, writes.length - 1)) {
        await refuseWhileRunning(tenantId, datasetId, versionNumber);
        continue;
      }
      // A second empty version is refused; the head moving for any other reason is a retry.
      if (emptiness.length > 0 && isEmpty && failedAt(outcome, 1) && !failedAt(outcome, 0))
        throw new AppError('20-1006');
      if (!failedAt(outcome, 0)) raiseRelated(outcome, 1 + emptiness.length, uses);
      await backOff(attempt);
    }
    throw versionConflict();
  },

  /**
   * Deletes a version with its uses. The last one stays (20-1007) unless the whole dataset
   * goes (`allowLast`); when the newest goes, the one before it becomes the latest.
   */
  async remove(
    tenantId: string,
    datasetId: number,
    versionNumber: number,
    options: { readonly allowLast?: boolean } = {},
  ): Promise<void> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
      const all = await graphs.list(tenantId, datasetId);
      const current = all.find((graph) => graph.version_number === versionNumber);
      if (!current) throw graphNotFound(datasetId, versionNumber);
      const head = await readHead(tenantId, datasetId);
      if (!head) throw notFound('dataset', datasetId);
      if (!options.allowLast && head.live_count <= 1) throw new AppError('20-1007');
      const isLatest = head.latest_version === versionNumber;
      const previous = all.filter((graph) => graph.version_number < versionNumber).at(-1);
      const headChanges = heads.changes({
        set: isLatest && previous ? { latest_version: previous.version_number } : {},
        increment: { live_count: -1 },
        remove: [
          ...(current.nodes.length === 0 ? ['empty_version'] : []),
          ...(isLatest && !previous ? ['latest_version'] : []),
        ],
      });
      const headAsRead = allOf(
        options.allowLast ? is.atLeast('live_count', 1) : is.greater('live_count', 1),
        isLatest ? is.equal('latest_version', versionNumber) : is.notEqual('latest_version', versionNumber),
      );
      const uses = await useWrites(tenantId, current, undefined);
      const writes: TransactItem[] = [
        // Exports and transfers of released versions add their refusal to this condition.
        tx.delete(graphKey(tenantId, datasetId, versionNumber), {
          when: is.equal('lock_version', current.lock_version),
        }),
        tx.update(headKey(tenantId, datasetId), headChanges, { when: headAsRead }),
        // The version that becomes the latest must still be there (not deleted at the same time).
        ...(isLatest && previous
          ? [tx.check(graphKey(tenantId, datasetId, previous.version_number), is.present('pk'))]
          : []),
        ...uses.map((write) => write.item),
        noActiveRun(tenantId, datasetId, versionNumber),
      ];
      const outcome = await transactWrite(writes);
      if (outcome.committed) return;
      if (failedAt(outcome, writes.length - 1)) {
        await refuseWhileRunning(tenantId, datasetId, versionNumber);
        continue;
      }
      // The version itself changed or went (a concurrent edit or deletion): its uses are no longer
      // what was read, so their conditions say nothing; read again.
      if (!failedAt(outcome, 0)) raiseRelated(outcome, writes.length - 1 - uses.length, uses);
      await backOff(attempt);
    }
    throw versionConflict();
  },

  /** Deletes every version, newest first, and so every use (the dataset's deletion, before its item goes). */
  async purge(tenantId: string, datasetId: number): Promise<void> {
    for (const graph of (await graphs.list(tenantId, datasetId)).reverse()) {
      // A version a concurrent deletion removed first is gone either way.
      await graphs.remove(tenantId, datasetId, graph.version_number, { allowLast: true }).catch((error: unknown) => {
        if (!(isAppError(error) && error.code === '10-404')) throw error;
      });
    }
  },

  /**
   * Stores the column lineage traced for a version (shared/datasets/lineage/graph-lineage.ts), only if
   * the version is still as it was read: lineage is derived, so it moves no lock_version and a
   * released version takes it too. Answers whether it was stored.
   */
  async storeLineage(tenantId: string, graph: StoredGraph, lineage: readonly StoredNodeLineage[]): Promise<boolean> {
    const changes = graphItems.changes({ set: { lineage: [...lineage] } });
    const outcome = await transactWrite([
      tx.update(graphKey(tenantId, graph.dataset_id, graph.version_number), changes, {
        when: is.equal('lock_version', graph.lock_version),
      }),
    ]);
    return outcome.committed;
  },

  /** Deleting the head commits with the dataset's item, and only if no version was created meanwhile. */
  headDeletion(tenantId: string, datasetId: number): RelatedWrite {
    return {
      item: tx.delete(headKey(tenantId, datasetId), { when: is.equal('live_count', 0) }),
      onConditionFailure: () => versionConflict(),
    };
  },
};

function emptyGraph(actor: Actor, datasetId: number, versionNumber: number): StoredGraph {
  const now = new Date().toISOString();
  return {
    dataset_id: datasetId,
    version_number: versionNumber,
    version_display_name: `V${versionNumber}`,
    release_status: false,
    lock_version: 0,
    next_node_id: 1,
    nodes: [],
    created_by: actor,
    created_date: now,
    last_modified_by: actor,
    last_modified_date: now,
  };
}

/** The source of a clone, still as read when the clone commits. */
function sourceUnchanged(tenantId: string, source: StoredGraph): TransactItem {
  return tx.check(
    graphKey(tenantId, source.dataset_id, source.version_number),
    is.equal('lock_version', source.lock_version),
  );
}
