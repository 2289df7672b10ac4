import { auditFieldsOf } from '../db/entity-store';
import type { DatasetNode, DatasetResponse, Edge, FullGraph, LeanGraph } from '../model/dataset';
import type { RecipeRunStatus } from '../model/recipe-run';
import type { StoredRecipeVersion } from '../recipes/items';
import { recipeVersionResponse } from '../recipes/response';
import { recipeVersions } from '../recipes/versions';
import type { StoredGraph, StoredNode } from './items';
import { nodeExecution, runContextOf, runStatusOf, type RunContext } from './run-view';
import { tableVersionsNow } from './run-plan';
import { nodeRuns } from './runs';
import { graphs } from './graphs';
import { findNode } from './nodes';
import { AppError } from '../errors/app-error';
import type { DatasetEntity } from './store';

/** What the API shows of datasets and their graphs (spec 2.8). */

/** A graph version's lean view; `expiration` is what the retention policy says of it (retention/expiry.ts). */
export function leanGraph(graph: StoredGraph, expiration: string | null = null): LeanGraph {
  return {
    dataset_id: graph.dataset_id,
    version_number: graph.version_number,
    version_display_name: graph.version_display_name,
    release_status: graph.release_status,
    lock_version: graph.lock_version,
    expiration_date: expiration,
    created_by: graph.created_by,
    created_date: graph.created_date,
    last_modified_by: graph.last_modified_by,
    last_modified_date: graph.last_modified_date,
  };
}

/** The recipe versions a graph's recipe nodes show, by "recipe/version". */
export type RecipeVersionsShown = ReadonlyMap<string, StoredRecipeVersion>;

const versionKey = (recipeId: number, versionNumber: number): string => `${recipeId}/${versionNumber}`;

/** Reads the recipe versions the nodes use (each once). */
export async function recipeVersionsOf(tenantId: string, nodes: readonly StoredNode[]): Promise<RecipeVersionsShown> {
  const wanted = new Map<string, { recipeId: number; versionNumber: number }>();
  for (const node of nodes) {
    if (node.node_type === 'RECIPE')
      wanted.set(versionKey(node.recipe_id, node.recipe_version_number), {
        recipeId: node.recipe_id,
        versionNumber: node.recipe_version_number,
      });
  }
  const found = await Promise.all(
    [...wanted].map(
      async ([key, { recipeId, versionNumber }]) =>
        [key, await recipeVersions.find(tenantId, recipeId, versionNumber)] as const,
    ),
  );
  return new Map(found.flatMap(([key, version]) => (version ? [[key, version] as const] : [])));
}

/** A node as the API shows it; a RECIPE node with its run fields (run-view.ts). */
export function nodeView(node: StoredNode, context: RunContext): DatasetNode {
  const datasetId = context.graph.dataset_id;
  if (node.node_type === 'TABLE') return { ...node, dataset_id: datasetId };
  const { sources, recipe_version_number: versionNumber, ...fields } = node;
  const version = context.versions.get(versionKey(node.recipe_id, versionNumber));
  const {
    dataset_id: _dataset,
    version_number: _version,
    node_id: _node,
    build_node_ids: _build,
    running_node_id: _running,
    ...run
  } = runStatusOf(node, context);
  return {
    ...fields,
    dataset_id: datasetId,
    recipe_version: version ? recipeVersionResponse(version) : null,
    source_node_definitions: sources.map((binding) => ({ ...binding })),
    ...run,
  };
}

/** One node of `graph` as the API shows it (its recipe version and runs read for it). */
export async function nodeResponse(tenantId: string, graph: StoredGraph, node: StoredNode): Promise<DatasetNode> {
  return nodeView(node, await runContextOf(tenantId, graph, await recipeVersionsOf(tenantId, graph.nodes)));
}

/** The edges of a graph: one per binding of a recipe node's source, carrying its alias. */
export function edgesOf(graph: StoredGraph): Edge[] {
  return graph.nodes.flatMap((node) =>
    node.node_type === 'RECIPE'
      ? node.sources.map((binding) => ({
          source_node_id: binding.source_node_id,
          target_node_id: node.id,
          alias: binding.alias,
        }))
      : [],
  );
}

/** The final recipe node: the only recipe node no node reads from; null when there are none or several. */
export function outputNodeOf(graph: StoredGraph): number | null {
  const sources = new Set(edgesOf(graph).map((edge) => edge.source_node_id));
  const sinks = graph.nodes.filter((node) => node.node_type === 'RECIPE' && !sources.has(node.id));
  return sinks.length === 1 ? (sinks[0]?.id ?? null) : null;
}

export async function fullGraph(tenantId: string, graph: StoredGraph): Promise<FullGraph> {
  const { expiration_date: _omitted, ...lean } = leanGraph(graph);
  const context = await runContextOf(tenantId, graph, await recipeVersionsOf(tenantId, graph.nodes));
  return {
    ...lean,
    nodes: graph.nodes.map((node) => nodeView(node, context)),
    edges: edgesOf(graph),
    output_dataset_recipe_node_id: outputNodeOf(graph),
  };
}

export function datasetResponse(entity: DatasetEntity, latest: StoredGraph | undefined): DatasetResponse {
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    name: entity.data.name,
    description: entity.data.description,
    tags: entity.data.tags ? [...entity.data.tags] : null,
    ...auditFieldsOf(entity),
    latest_transformation_graph: latest ? leanGraph(latest) : null,
  };
}

/**
 * The run status of a graph version's node; 20-1014 for a TABLE node (it does not run). The
 * recipe and table versions its output was built from are read only once its run completed,
 * since only then do they decide anything (SUCCEEDED or STALE): a poll while a run is queued or
 * running reads the graph and its runs, two store calls instead of five.
 */
export async function readRunStatus(
  tenantId: string,
  datasetId: number,
  graphVersion: number,
  nodeId: number,
): Promise<RecipeRunStatus> {
  const graph = await graphs.get(tenantId, datasetId, graphVersion);
  const node = findNode(graph, nodeId);
  if (node.node_type !== 'RECIPE') throw new AppError('20-1014', { params: [node.node_type] });
  const runs = await nodeRuns.list(tenantId, datasetId, graphVersion);
  const run = runs.get(nodeId);
  if (!run || nodeExecution(run, runs).status !== 'COMPLETED')
    return runStatusOf(node, { graph, versions: new Map(), runs, tables: new Map() });
  const [versions, tables] = await Promise.all([
    recipeVersionsOf(tenantId, graph.nodes),
    tableVersionsNow(tenantId, graph.nodes),
  ]);
  return runStatusOf(node, { graph, versions, runs, tables });
}
