import { dataVersions } from '../data-tables/versions';
import { AppError } from '../errors/app-error';
import type { StoredRecipeVersion } from '../recipes/items';
import type { BuildStep } from './jobs';
import type { StoredGraph, StoredNode, StoredRecipeNode, StoredTableNode } from './items';
import { findNode } from './nodes';
import { outputAttribute, type OutputKind, type RunInputs, type RunSource, type StoredNodeRun } from './run-items';
import { versionNotFound } from '../recipes/versions';

/**
 * What a recipe run reads and which nodes it builds (spec 2.7 execute; docs/recipe-runs.md).
 * A TABLE node is read at its pinned data version, or at the table's latest COMPLETED one;
 * a RECIPE node upstream is read as its output of the same kind. An output is current while
 * the inputs a run would read now equal the ones it was built from (run-items.ts RunInputs).
 */

/** The data version each TABLE node reads now, by node id; undefined when it has none to read. */
export type TableVersionsNow = ReadonlyMap<number, number | undefined>;

/** Recipe versions by "recipe/version" (datasets/response.ts recipeVersionsOf). */
export type RecipeVersionsByKey = ReadonlyMap<string, StoredRecipeVersion>;

const versionKey = (node: StoredRecipeNode): string => `${node.recipe_id}/${node.recipe_version_number}`;

/** The TABLE nodes' versions to read: a pinned version if COMPLETED, else the newest COMPLETED one. */
export async function tableVersionsNow(tenantId: string, nodes: readonly StoredNode[]): Promise<TableVersionsNow> {
  const tables = nodes.filter((node): node is StoredTableNode => node.node_type === 'TABLE');
  const completed = (execution: { status: string }) => execution.status === 'COMPLETED';
  const resolved = await Promise.all(
    tables.map(async (node): Promise<[number, number | undefined]> => {
      if (node.data_table_version_number !== null) {
        const version = await dataVersions.find(tenantId, node.data_table_id, node.data_table_version_number);
        return [node.id, version && completed(version.execution) ? version.version_number : undefined];
      }
      return [node.id, (await dataVersions.newestCompleted(tenantId, node.data_table_id))?.version_number];
    }),
  );
  return new Map(resolved);
}

/** The recipe nodes `target` reads from, directly or not, then `target`: each after its sources. */
export function upstreamOrder(graph: StoredGraph, target: StoredRecipeNode): StoredRecipeNode[] {
  const order: StoredRecipeNode[] = [];
  const visit = (node: StoredNode): void => {
    if (node.node_type !== 'RECIPE' || order.includes(node)) return;
    for (const binding of node.sources) {
      const source = graph.nodes.find((candidate) => candidate.id === binding.source_node_id);
      if (source) visit(source);
    }
    order.push(node);
  };
  visit(target);
  return order;
}

/** Upstream outputs a run reads: the ones built in the same job are named by that job. */
interface UpstreamRuns {
  readonly runs: ReadonlyMap<number, StoredNodeRun>;
  readonly builtBy?: { readonly jobId: string; readonly nodes: ReadonlySet<number> };
}

/**
 * The inputs `node` reads now in `kind`, or the reason it cannot run: 20-1049 when a binding
 * went with its source node, 20-1059 when a table has no data to read, 20-1039 when an
 * upstream recipe node has no output of that kind.
 */
export function inputsOf(
  graph: StoredGraph,
  node: StoredRecipeNode,
  version: StoredRecipeVersion,
  tables: TableVersionsNow,
  upstream: UpstreamRuns,
  kind: OutputKind,
): RunInputs | AppError {
  if (node.sources.length !== version.aliases.length)
    return new AppError('20-1049', { params: [version.aliases.length, node.sources.length] });
  const sources: RunSource[] = [];
  for (const binding of node.sources) {
    const source = graph.nodes.find((candidate) => candidate.id === binding.source_node_id);
    if (!source) return new AppError('20-1049', { params: [version.aliases.length, node.sources.length - 1] });
    const at = { alias: binding.alias, node_id: source.id };
    if (source.node_type === 'TABLE') {
      const versionNumber = tables.get(source.id);
      if (versionNumber === undefined)
        return new AppError('20-1059', {
          params: [source.data_table_id, source.data_table_version_number ?? 'latest'],
        });
      sources.push({ ...at, data_table_id: source.data_table_id, data_version_number: versionNumber });
    } else if (upstream.builtBy?.nodes.has(source.id)) {
      sources.push({ ...at, upstream_run_id: upstream.builtBy.jobId });
    } else {
      const output = upstream.runs.get(source.id)?.[outputAttribute(kind)];
      if (!output)
        return new AppError('20-1039', {
          params: [`${graph.dataset_id}/${graph.version_number}/${source.id}/${kind}`],
        });
      sources.push({ ...at, upstream_run_id: output.run_id });
    }
  }
  return {
    recipe_id: node.recipe_id,
    recipe_version_number: version.version_number,
    recipe_lock_version: version.lock_version,
    sources,
  };
}

/** Same inputs, field by field (stored items keep their order of writing). */
export function sameInputs(a: RunInputs, b: RunInputs): boolean {
  const sourceText = (source: RunSource) =>
    [source.alias, source.node_id, source.data_table_id, source.data_version_number, source.upstream_run_id].join('|');
  return (
    a.recipe_id === b.recipe_id &&
    a.recipe_version_number === b.recipe_version_number &&
    a.recipe_lock_version === b.recipe_lock_version &&
    a.sources.map(sourceText).join('\n') === b.sources.map(sourceText).join('\n')
  );
}

/** Whether the node's output of `kind` was built from what it would read now, and so were its upstream outputs. */
export function isCurrent(
  graph: StoredGraph,
  node: StoredRecipeNode,
  versions: RecipeVersionsByKey,
  tables: TableVersionsNow,
  runs: ReadonlyMap<number, StoredNodeRun>,
  kind: OutputKind,
): boolean {
  const output = runs.get(node.id)?.[outputAttribute(kind)];
  const version = versions.get(versionKey(node));
  if (!output || !version) return false;
  const now = inputsOf(graph, node, version, tables, { runs }, kind);
  if (now instanceof AppError || !sameInputs(output.inputs, now)) return false;
  // An output read from a stale upstream output is stale too.
  return node.sources.every((binding) => {
    const source = graph.nodes.find((candidate) => candidate.id === binding.source_node_id);
    return source?.node_type !== 'RECIPE' || isCurrent(graph, source, versions, tables, runs, kind);
  });
}

/**
 * The steps of a run of `targetId` in `kind` as job `jobId`: every upstream recipe node
 * without a current output (or reading one that is rebuilt), then the target, each with the
 * inputs it will read. 20-1014 for a TABLE node; the refusals of inputsOf otherwise.
 */
export function planRun(
  graph: StoredGraph,
  targetId: number,
  versions: RecipeVersionsByKey,
  tables: TableVersionsNow,
  runs: ReadonlyMap<number, StoredNodeRun>,
  kind: OutputKind,
  jobId: string,
): BuildStep[] {
  const target = findNode(graph, targetId);
  if (target.node_type !== 'RECIPE') throw new AppError('20-1014', { params: [target.node_type] });
  const built = new Set<number>();
  const steps: BuildStep[] = [];
  for (const node of upstreamOrder(graph, target)) {
    const version = versions.get(versionKey(node));
    if (!version) throw versionNotFound(node.recipe_id, node.recipe_version_number);
    const readsRebuilt = node.sources.some((binding) => built.has(binding.source_node_id));
    if (node !== target && !readsRebuilt && isCurrent(graph, node, versions, tables, runs, kind)) continue;
    const inputs = inputsOf(graph, node, version, tables, { runs, builtBy: { jobId, nodes: built } }, kind);
    if (inputs instanceof AppError) throw inputs;
    built.add(node.id);
    steps.push({ node_id: node.id, inputs });
  }
  return steps;
}
