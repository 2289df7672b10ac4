import { is } from '../db/expressions';
import { keys, type ItemKey } from '../db/keys';
import { tx } from '../db/transactions';
import type { StoredRecipeUsage } from '../recipes/items';
import { recipeUsageItems } from '../recipes/usages';
import type { StoredGraph, StoredRecipeNode } from './items';
import type { UseWrite } from './references';
import { datasetStore } from './store';
import { versionNotFound } from '../recipes/versions';

/**
 * A recipe node is a use of its recipe version, recorded beside the version (the recipes
 * module lists them: GET /recipes/{id}/versions/{n}/usages). Every graph write rewrites the
 * uses of its recipe nodes in the same transaction, so they show the graph version as it is
 * (its lock_version, release status); the dataset's name is read when the uses are listed
 * (withCurrentDatasetNames).
 */

function usageKey(tenantId: string, graph: StoredGraph, node: StoredRecipeNode): ItemKey {
  return keys.versionUse(tenantId, 'RECIPE', node.recipe_id, node.recipe_version_number, [
    graph.dataset_id,
    graph.version_number,
    node.id,
  ]);
}

const recipeNodes = (graph: StoredGraph): StoredRecipeNode[] =>
  graph.nodes.flatMap((node) => (node.node_type === 'RECIPE' ? [node] : []));
const keyText = (key: ItemKey): string => `${key.pk}|${key.sk}`;

function usageOf(graph: StoredGraph, node: StoredRecipeNode, datasetName: string | null): StoredRecipeUsage {
  return {
    recipe_id: node.recipe_id,
    recipe_version_number: node.recipe_version_number,
    dataset_id: graph.dataset_id,
    version_number: graph.version_number,
    version_display_name: graph.version_display_name,
    release_status: graph.release_status,
    lock_version: graph.lock_version,
    expiration_date: null,
    dataset_name: datasetName,
    node_id: node.id,
    created_by: node.created_by,
    created_date: node.created_date,
    last_modified_by: node.last_modified_by,
    last_modified_date: node.last_modified_date,
  };
}

/**
 * The writes that take the recorded uses from graph `before` to graph `after` (either may be
 * absent: a new or a deleted version). A newly used version must exist (20-1045).
 */
export function recipeUseWrites(
  tenantId: string,
  before: StoredGraph | undefined,
  after: StoredGraph | undefined,
  datasetName: string | null,
): UseWrite[] {
  const unexpected = (key: ItemKey) => () => new Error(`use ${keyText(key)}: unexpected condition failure`);
  const previous = before ? recipeNodes(before).map((node) => usageKey(tenantId, before, node)) : [];
  const next = after
    ? recipeNodes(after).map((node) => ({
        node,
        key: usageKey(tenantId, after, node),
        usage: usageOf(after, node, datasetName),
      }))
    : [];
  const writes: UseWrite[] = [];
  const checked = new Set(previous.map(keyText));
  for (const { node, key, usage } of next) {
    writes.push({
      item: tx.put(key, recipeUsageItems.attributes(usage, { kind: recipeUsageItems.kind, tenant_id: tenantId })),
      onConditionFailure: unexpected(key),
    });
    const versionKey = keys.version(tenantId, 'RECIPE', node.recipe_id, node.recipe_version_number);
    // A use new to this graph needs its version to exist; one check per version.
    if (checked.has(keyText(key)) || checked.has(keyText(versionKey))) continue;
    checked.add(keyText(versionKey));
    writes.push({
      item: tx.check(versionKey, is.present('pk')),
      onConditionFailure: () => versionNotFound(node.recipe_id, node.recipe_version_number),
    });
  }
  const kept = new Set(next.map(({ key }) => keyText(key)));
  for (const key of previous) {
    if (!kept.has(keyText(key))) writes.push({ item: tx.delete(key), onConditionFailure: unexpected(key) });
  }
  return writes;
}

/**
 * The uses with the name each dataset has now: a rename does not rewrite the uses (they keep
 * the name of the graph's last change), so the list reads the names, one BatchGetItem per
 * hundred datasets.
 */
export async function withCurrentDatasetNames(
  tenantId: string,
  usages: readonly StoredRecipeUsage[],
): Promise<StoredRecipeUsage[]> {
  const datasets = await datasetStore.findMany(
    tenantId,
    usages.map((usage) => usage.dataset_id),
  );
  return usages.map((usage) => ({
    ...usage,
    dataset_name: datasets.get(usage.dataset_id)?.data.name ?? usage.dataset_name,
  }));
}
