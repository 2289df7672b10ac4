import type { Actor } from '../db/actor';
import { is } from '../db/expressions';
import { tx } from '../db/transactions';
import { keys } from '../db/keys';
import { AppError } from '../errors/app-error';
import { dataVersions } from '../data-tables/versions';
import { refuseIfOutputQualityFailed, refuseIfQualityFailed } from '../quality/gate';
import { recipeVersions } from '../recipes/versions';
import { graphs } from './graphs';
import type { StoredGraph, StoredNode, StoredRecipeNode } from './items';
import type { UseWrite } from './references';
import { edgesOf, recipeVersionsOf, type RecipeVersionsShown } from './response';
import { isCurrent, tableVersionsNow, upstreamOrder } from './run-plan';
import { runContextOf } from './run-view';

/**
 * Releasing a graph version (spec 3, conditions 1–3): it needs one output (a single free
 * node, 20-1058, that is a recipe node, 20-1020) whose output on full data is current, and so
 * is every recipe node's it reads from (20-1021). The release freezes the graph (20-1022) and
 * locks every recipe version it uses (20-1046), in one transaction with the graph, the
 * versions and the full outputs as read: an edit, a recipe version update or a run that
 * lands first is seen by the checks of the next reading; one that comes after is refused by
 * the frozen graph, the locks, or the graph's run lock (20-1034).
 */

/** The nodes nothing reads from. */
export function freeNodesOf(graph: StoredGraph): StoredNode[] {
  const read = new Set(edgesOf(graph).map((edge) => edge.source_node_id));
  return graph.nodes.filter((node) => !read.has(node.id));
}

/** The node a release publishes, or the rule the graph breaks. */
export function releasableOutputOf(graph: StoredGraph): StoredRecipeNode {
  const free = freeNodesOf(graph);
  if (free.length > 1) throw new AppError('20-1058');
  const [output] = free;
  if (output?.node_type !== 'RECIPE') throw new AppError('20-1020');
  return output;
}

/** Releases the version; a released one is answered as it is (a retried release succeeds). */
export async function releaseGraph(
  tenantId: string,
  actor: Actor,
  datasetId: number,
  versionNumber: number,
): Promise<StoredGraph> {
  const current = await graphs.get(tenantId, datasetId, versionNumber);
  if (current.release_status) return current;
  const { graph } = await graphs.edit(tenantId, actor, datasetId, versionNumber, async (read) => {
    const output = releasableOutputOf(read);
    const versions = await recipeVersionsOf(tenantId, read.nodes);
    const outputs = await currentFullOutputs(tenantId, read, output, versions);
    await refuseFailedTableVersions(tenantId, read);
    return {
      nodes: read.nodes,
      result: undefined,
      release: true,
      writes: [...outputs, ...(await lockWritesOf(tenantId, versions))],
    };
  });
  return graph;
}

/**
 * 20-1021 unless the output and every recipe node it reads from have a current output on
 * full data, 90-1002 when one of those failed an error rule of its node; then the checks that
 * those outputs are still the ones read when the release commits.
 */
async function currentFullOutputs(
  tenantId: string,
  graph: StoredGraph,
  output: StoredRecipeNode,
  versions: RecipeVersionsShown,
): Promise<UseWrite[]> {
  const context = await runContextOf(tenantId, graph, versions);
  const nodes = upstreamOrder(graph, output);
  const writes = nodes.map((node) => {
    const built = context.runs.get(node.id)?.full_output;
    if (!built || !isCurrent(graph, node, versions, context.tables, context.runs, 'full'))
      throw new AppError('20-1021');
    return {
      item: tx.check(
        keys.nodeRun(tenantId, graph.dataset_id, graph.version_number, node.id),
        is.equal('full_output.run_id', built.run_id),
      ),
      onConditionFailure: () => new AppError('20-1021'),
      retry: true,
    };
  });
  // 90-1002 when one of these outputs failed an error rule of its node that nobody accepted (docs/data-quality.md).
  for (const node of nodes)
    await refuseIfOutputQualityFailed(tenantId, {
      dataset_id: graph.dataset_id,
      version_number: graph.version_number,
      node_id: node.id,
      use_sample: false,
      output: context.runs.get(node.id)!.full_output!,
    });
  return writes;
}

/**
 * 90-1002 when a table version the graph reads (the one its outputs were built from) failed
 * an error data-quality rule that nobody accepted (docs/data-quality.md).
 */
async function refuseFailedTableVersions(tenantId: string, graph: StoredGraph): Promise<void> {
  const now = await tableVersionsNow(tenantId, graph.nodes);
  for (const node of graph.nodes) {
    const versionNumber = now.get(node.id);
    if (node.node_type !== 'TABLE' || versionNumber === undefined) continue;
    const version = await dataVersions.find(tenantId, node.data_table_id, versionNumber);
    if (version) await refuseIfQualityFailed(tenantId, version);
  }
}

/** The locks of every recipe version the graph uses that is not locked yet. */
async function lockWritesOf(tenantId: string, versions: RecipeVersionsShown): Promise<UseWrite[]> {
  const writes = await Promise.all(
    [...versions.values()]
      .filter((version) => !version.is_locked)
      .map((version) => recipeVersions.lockWrites(tenantId, version)),
  );
  return writes
    .flat()
    .map((write) => ({ item: write.item, onConditionFailure: () => write.onConditionFailure(undefined), retry: true }));
}
