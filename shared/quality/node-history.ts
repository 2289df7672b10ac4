import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys, type ItemKey } from '../db/keys';
import { deleteItem, putItem, updateItem } from '../db/table';
import { applyListQuery, type ListFields, type ListPage, type ListQuery } from '../http/list-query';
import {
  NodeQualityCheck,
  type NODE_QUALITY_CHECK_LIST_FIELDS,
  type QualityAcceptance,
  type QualityReport,
} from '../model/quality-rule';

/**
 * The history of a recipe node's data-quality checks (docs/data-quality.md): a node's run
 * rewrites its output, and so its report, so each check is also kept apart, per graph
 * version and node, the newest HISTORY_LIMIT of them. They live in the dataset's item
 * collection under the graph version's run prefix (`R#<v>#Q#<node>#<date>#<run>#<kind>`), so
 * they go with the version's runs (datasets/run-cleanup.ts) and with the dataset.
 */

/** Checks kept per node of a graph version: older ones go as new ones come. */
export const HISTORY_LIMIT = 100;

export const nodeCheckItems = new ItemType('NODE_QUALITY_CHECK', NodeQualityCheck);

/** A check's key: its date first, so checks sort by time; its run and output kind make it one. */
function checkKey(tenantId: string, check: Pick<NodeQualityCheck, CheckKeyFields>): ItemKey {
  const id = `${check.checked_date}#${check.run_id}#${check.use_sample ? 'sample' : 'full'}`;
  return keys.nodeCheck(tenantId, check.dataset_id, check.version_number, check.node_id, id);
}
type CheckKeyFields = 'dataset_id' | 'version_number' | 'node_id' | 'checked_date' | 'run_id' | 'use_sample';

/** Where a check was made: the node's output of one kind, written by one run. */
export interface CheckedNodeOutput {
  readonly datasetId: number;
  readonly graphVersion: number;
  readonly nodeId: number;
  readonly runId: string;
  readonly useSample: boolean;
}

/** Writes a check, then lets the node's oldest go beyond the limit. */
export async function recordNodeCheck(tenantId: string, at: CheckedNodeOutput, report: QualityReport): Promise<void> {
  const check: NodeQualityCheck = {
    ...report,
    dataset_id: at.datasetId,
    version_number: at.graphVersion,
    node_id: at.nodeId,
    run_id: at.runId,
    use_sample: at.useSample,
  };
  await putItem(
    checkKey(tenantId, check),
    nodeCheckItems.attributes(check, { kind: 'NODE_QUALITY_CHECK', tenant_id: tenantId }),
  );
  const all = await checksOf(tenantId, at.datasetId, at.graphVersion, at.nodeId);
  const excess = all.slice(0, Math.max(0, all.length - HISTORY_LIMIT));
  await Promise.all(excess.map((old) => deleteItem(checkKey(tenantId, old))));
}

/** The check an acceptance of the output's report follows: the one with the same run, output and date. */
export async function acceptNodeCheck(
  tenantId: string,
  check: Pick<NodeQualityCheck, CheckKeyFields>,
  accepted: QualityAcceptance,
): Promise<void> {
  // A check the limit let go has nothing to follow.
  await updateItem(
    checkKey(tenantId, check),
    nodeCheckItems.changes({ set: { accepted } }),
    is.equal('status', 'FAILED'),
  );
}

function checksOf(tenantId: string, datasetId: number, graphVersion: number, nodeId: number) {
  return nodeCheckItems.query(
    keys.children(tenantId, 'DATASET', datasetId),
    keys.nodeCheckPrefix(graphVersion, nodeId),
  );
}

interface Listed {
  readonly id: number;
  readonly check: NodeQualityCheck;
}

const FIELDS: ListFields<Listed, typeof NODE_QUALITY_CHECK_LIST_FIELDS> = {
  checked_date: { type: 'datetime', value: ({ check }) => check.checked_date },
  status: { type: 'string', value: ({ check }) => check.status },
  use_sample: { type: 'boolean', value: ({ check }) => check.use_sample },
  run_id: { type: 'string', value: ({ check }) => check.run_id },
};

/** The node's checks in the graph version, oldest first unless sorted (ListQuery). */
export async function nodeCheckPage(
  tenantId: string,
  datasetId: number,
  graphVersion: number,
  nodeId: number,
  query: ListQuery,
): Promise<ListPage<NodeQualityCheck>> {
  const checks = await checksOf(tenantId, datasetId, graphVersion, nodeId);
  const page = applyListQuery(
    checks.map((check, index) => ({ id: index + 1, check })),
    query,
    FIELDS,
  );
  return { ...page, items: page.items.map(({ check }) => check) };
}
