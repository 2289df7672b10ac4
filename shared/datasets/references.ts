import { is } from '../db/expressions';
import { keys, type ItemKey } from '../db/keys';
import { tx, type TransactItem } from '../db/transactions';
import { type AppError, notFound } from '../errors/app-error';
import type { StoredNode } from './items';

/**
 * A TABLE node is a use of its data table and of its pinned version: while one exists, the
 * table cannot be deleted (20-1023) nor the version (20-1024). The uses are counted on the
 * table's item and the version's item (ref_datasets, which their deletes check in their
 * conditions), and every graph write moves the counters in the same transaction, so a node
 * and a deletion cannot both commit.
 */

/** A counter write of a graph transaction and what its failed condition means. */
export interface UseWrite {
  readonly item: TransactItem;
  readonly onConditionFailure: () => Error;
  /** A failed condition means that what the change read has moved: read again and judge anew. */
  readonly retry?: boolean;
}

const REF = 'ref_datasets';

interface Counted {
  readonly key: ItemKey;
  readonly missing: () => AppError;
  count: number;
}

function countUses(tenantId: string, nodes: readonly StoredNode[], sign: 1 | -1, into: Map<string, Counted>): void {
  const add = (id: string, key: ItemKey, missing: () => AppError) => {
    const entry = into.get(id) ?? { key, missing, count: 0 };
    entry.count += sign;
    into.set(id, entry);
  };
  for (const node of nodes) {
    if (node.node_type !== 'TABLE') continue;
    const tableId = node.data_table_id;
    add(`T${tableId}`, keys.entity(tenantId, 'DATA_TABLE', tableId), () => notFound('data table', tableId));
    const versionNumber = node.data_table_version_number;
    if (versionNumber !== null) {
      add(`V${tableId}/${versionNumber}`, keys.version(tenantId, 'DATA_TABLE', tableId, versionNumber), () =>
        notFound('data version', `${tableId}/${versionNumber}`),
      );
    }
  }
}

/**
 * The counter writes that take the graph's table uses from `before` to `after`: one write per
 * table or version whose count changes (a clone adds its uses of one table in one write).
 * An added use requires the table or version to exist (10-404).
 */
export function tableUseWrites(
  tenantId: string,
  before: readonly StoredNode[],
  after: readonly StoredNode[],
): UseWrite[] {
  const counts = new Map<string, Counted>();
  countUses(tenantId, before, -1, counts);
  countUses(tenantId, after, 1, counts);
  const writes: UseWrite[] = [];
  for (const { key, missing, count } of counts.values()) {
    if (count === 0) continue;
    const adding = count > 0;
    writes.push({
      item: tx.update(key, { add: { [REF]: count } }, { when: adding ? is.present('pk') : is.atLeast(REF, -count) }),
      onConditionFailure: adding
        ? missing
        : () => new Error(`${key.pk} / ${key.sk}: ${REF} lower than the graph's uses`),
    });
  }
  return writes;
}
