import { createHash } from 'node:crypto';
import { dataVersions } from '../../data-tables/versions';
import type { StoredGraph, StoredNode, StoredRecipeNode, StoredTableNode } from '../items';
import { logger } from '../../log';
import { recipeStore } from '../../recipes/store';
import { recipeVersions } from '../../recipes/versions';
import type { StoredDependency, StoredNodeLineage } from '../../model/stored-lineage';
import { traceRecipe, traceTrinoTree, type RecipeLineage } from '../../engine/lineage/trace';

/**
 * Column lineage of a whole graph version, traced when it is saved (shared/datasets/graphs.ts):
 * each TABLE node's columns are its data version's (the pinned one, else the newest
 * COMPLETED), each recipe node's are traced over its sources' columns, upstream first. An
 * entry whose basis (its recipe version and code, its sources' entries, its data version) did
 * not move is kept as it was, so a save parses only the nodes it changed. Tracing never fails
 * a save: what it cannot do is stored as `unknown`.
 */

/** Above this many characters of JSON the entries' columns are left out: a graph item holds 400 KB in all. */
export const MAX_STORED_LINEAGE_CHARS = 150_000;

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 16);

/** Nodes with every recipe node after the nodes it reads (bindings cannot form a cycle, bindings.ts). */
function upstreamFirst(nodes: readonly StoredNode[]): StoredNode[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const ordered: StoredNode[] = [];
  const placed = new Set<number>();
  const place = (node: StoredNode, depth: number) => {
    if (placed.has(node.id) || depth > nodes.length) return;
    if (node.node_type === 'RECIPE')
      for (const binding of node.sources) {
        const source = byId.get(binding.source_node_id);
        if (source) place(source, depth + 1);
      }
    placed.add(node.id);
    ordered.push(node);
  };
  for (const node of nodes) place(node, 0);
  return ordered;
}

async function tableLineage(tenantId: string, node: StoredTableNode): Promise<StoredNodeLineage> {
  const pinned = node.data_table_version_number;
  const version =
    pinned === null
      ? await dataVersions.newestCompleted(tenantId, node.data_table_id)
      : await dataVersions.find(tenantId, node.data_table_id, pinned);
  const columns = version?.execution.status === 'COMPLETED' ? (version.metadata?.columns ?? null) : null;
  const base = { node_id: node.id, data_version_number: columns ? version!.version_number : null, indirect: [] };
  if (!columns)
    return {
      ...base,
      basis: `T${node.data_table_id}:none`,
      columns: [],
      unknown: `data table ${node.data_table_id} has no COMPLETED version${pinned === null ? '' : ` ${pinned}`} to read columns from`,
    };
  return {
    ...base,
    basis: digest(
      `T${node.data_table_id}:${version!.version_number}:${columns.map((column) => column.name).join(',')}`,
    ),
    columns: columns.map((column, index) => ({ position: index + 1, name: column.name, from: [] })),
  };
}

/** The names of an entry's columns, as a recipe reading it sees them; null when the list is not all known. */
function columnNames(entry: StoredNodeLineage | undefined): string[] | null {
  if (!entry || entry.unknown !== undefined) return null;
  if (entry.columns.some((column) => column.name === null)) return null;
  return entry.columns.map((column) => column.name!);
}

async function recipeLineage(
  tenantId: string,
  node: StoredRecipeNode,
  traced: ReadonlyMap<number, StoredNodeLineage>,
  previous: StoredNodeLineage | undefined,
): Promise<StoredNodeLineage> {
  const version = await recipeVersions.find(tenantId, node.recipe_id, node.recipe_version_number);
  const sources = node.sources.map((binding) => ({ binding, entry: traced.get(binding.source_node_id) }));
  const basis = digest(
    [
      `R${node.recipe_id}:${node.recipe_version_number}:${version?.lock_version ?? 'gone'}`,
      ...sources.map(({ binding, entry }) => `${binding.alias}=${binding.source_node_id}:${entry?.basis ?? 'none'}`),
    ].join('|'),
  );
  if (previous?.basis === basis) return previous;
  const base = { node_id: node.id, basis, indirect: [] };
  if (!version)
    return { ...base, columns: [], unknown: `recipe ${node.recipe_id} version ${node.recipe_version_number} is gone` };
  const recipe = await recipeStore.find(tenantId, node.recipe_id);
  const inputs = sources.map(({ binding, entry }) => ({ alias: binding.alias, columns: columnNames(entry) }));
  const byAlias = new Map(node.sources.map((binding) => [binding.alias.toLowerCase(), binding.source_node_id]));
  // A trino-sql version carries its tree, made when it was saved (the parser stays out of here).
  const lineage =
    recipe?.data.language === 'trino-sql'
      ? traceTrinoTree(version.lineage_tree, inputs)
      : await traceRecipe(version.code, inputs);
  return { ...base, ...stored(lineage, byAlias) };
}

/** A recipe's lineage with each input alias replaced by the node bound to it. */
function stored(
  lineage: RecipeLineage,
  byAlias: ReadonlyMap<string, number>,
): Pick<StoredNodeLineage, 'columns' | 'indirect' | 'unknown'> {
  const dependency = ({ input, column, how }: { input: string; column: string; how: StoredDependency['how'] }) => ({
    node_id: byAlias.get(input.toLowerCase()) ?? 0,
    column,
    how,
  });
  return {
    columns: lineage.columns.map((column) => ({
      position: column.position,
      name: column.name,
      from: column.dependencies.map(dependency),
      ...(column.unknown === undefined ? {} : { unknown: column.unknown }),
    })),
    indirect: lineage.indirect.map(dependency),
    ...(lineage.unknown === undefined ? {} : { unknown: lineage.unknown }),
  };
}

/**
 * The lineage to store with `graph`, reusing the entries of `previous` (the version as it was
 * read) whose basis did not move. Never throws: a node whose tracing failed is stored unknown.
 */
export async function traceGraph(
  tenantId: string,
  graph: Pick<StoredGraph, 'nodes' | 'dataset_id' | 'version_number'>,
  previous: readonly StoredNodeLineage[] = [],
): Promise<StoredNodeLineage[]> {
  const before = new Map(previous.map((entry) => [entry.node_id, entry]));
  const traced = new Map<number, StoredNodeLineage>();
  for (const node of upstreamFirst(graph.nodes)) {
    try {
      traced.set(
        node.id,
        node.node_type === 'TABLE'
          ? await tableLineage(tenantId, node)
          : await recipeLineage(tenantId, node, traced, before.get(node.id)),
      );
    } catch (error) {
      logger.warn('column lineage of a node could not be traced', {
        datasetId: graph.dataset_id,
        nodeId: node.id,
        error: error as Error,
      });
      traced.set(node.id, { node_id: node.id, basis: 'failed', columns: [], indirect: [], unknown: 'tracing failed' });
    }
  }
  return withinBudget(graph.nodes.map((node) => traced.get(node.id)!));
}

/** The entries as they fit the graph's item: past the budget, the largest lose their columns, saying why. */
function withinBudget(entries: StoredNodeLineage[]): StoredNodeLineage[] {
  let size = JSON.stringify(entries).length;
  if (size <= MAX_STORED_LINEAGE_CHARS) return entries;
  const bySize = entries
    .map((entry, index) => ({ index, size: JSON.stringify(entry).length }))
    .sort((a, b) => b.size - a.size);
  const result = [...entries];
  for (const { index, size: entrySize } of bySize) {
    if (size <= MAX_STORED_LINEAGE_CHARS) break;
    const entry = result[index]!;
    result[index] = {
      ...entry,
      columns: [],
      indirect: [],
      unknown: 'the lineage of this node is larger than a graph version stores',
    };
    size -= entrySize - JSON.stringify(result[index]).length;
  }
  return result;
}
