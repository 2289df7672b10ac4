import { AppError, validationError, versionConflict } from '../errors/app-error';
import { recipeVersions, type StoredRecipeVersion } from '../recipes/versions';
import { MAX_RECIPE_NODES, candidatesFor, checkBindings } from './bindings';
import { graphs } from './graphs';
import type { StoredGraph, StoredRecipeNode } from './items';
import { findNode, type NodeAddress, type RecipeNodeInput } from './nodes';

/**
 * RECIPE nodes (spec 2.8): a recipe version applied to source nodes bound to its aliases.
 * The version is read first (20-1044, 20-1045) and checked again to exist when the node is
 * written (usages.ts); the bindings are judged on the graph as read (bindings.ts).
 */

async function versionOf(
  tenantId: string,
  recipeId: number | undefined,
  versionNumber: number | undefined,
): Promise<StoredRecipeVersion> {
  if (recipeId === undefined) throw new AppError('20-1047');
  if (versionNumber === undefined) throw validationError({ recipe_version_number: 'is required for a RECIPE node' });
  return recipeVersions.get(tenantId, recipeId, versionNumber);
}

export async function addRecipeNode(at: NodeAddress, input: RecipeNodeInput): Promise<StoredRecipeNode> {
  const version = await versionOf(at.tenantId, input.recipe_id, input.recipe_version_number);
  const { result } = await graphs.edit(at.tenantId, at.actor, at.datasetId, at.versionNumber, (graph, now) => {
    if (graph.nodes.filter((node) => node.node_type === 'RECIPE').length >= MAX_RECIPE_NODES)
      throw new AppError('20-1035');
    const id = graph.next_node_id;
    const node: StoredRecipeNode = {
      id,
      lock_version: 0,
      node_type: 'RECIPE',
      recipe_id: version.recipe_id,
      recipe_version_number: version.version_number,
      sources: checkBindings(graph.nodes, id, version.aliases, input.source_node_definitions ?? []),
      created_by: at.actor,
      created_date: now,
      last_modified_by: at.actor,
      last_modified_date: now,
    };
    return { nodes: [...graph.nodes, node], nextNodeId: id + 1, result: node };
  });
  return result;
}

/** Switches the recipe version (or the recipe, with recipe_id) and rebinds the sources, with the checks of an addition. */
export async function updateRecipeNode(
  at: NodeAddress,
  nodeId: number,
  lockVersion: number,
  input: RecipeNodeInput,
): Promise<StoredRecipeNode> {
  if (input.source_node_definitions === undefined)
    throw validationError({ source_node_definitions: 'is required for a RECIPE node' });
  const current = findNode(await graphs.get(at.tenantId, at.datasetId, at.versionNumber), nodeId);
  if (current.node_type !== 'RECIPE')
    throw validationError({ node_type: `node ${nodeId} is a ${current.node_type} node` });
  const version = await versionOf(at.tenantId, input.recipe_id ?? current.recipe_id, input.recipe_version_number);
  const sources = input.source_node_definitions;
  const { result } = await graphs.edit(at.tenantId, at.actor, at.datasetId, at.versionNumber, (graph, now) => {
    const node = findNode(graph, nodeId);
    if (node.node_type !== 'RECIPE') throw validationError({ node_type: `node ${nodeId} is a ${node.node_type} node` });
    if (node.lock_version !== lockVersion) throw versionConflict();
    const next: StoredRecipeNode = {
      ...node,
      recipe_id: version.recipe_id,
      recipe_version_number: version.version_number,
      sources: checkBindings(graph.nodes, nodeId, version.aliases, sources),
      lock_version: node.lock_version + 1,
      last_modified_by: at.actor,
      last_modified_date: now,
    };
    return { nodes: graph.nodes.map((candidate) => (candidate.id === nodeId ? next : candidate)), result: next };
  });
  return result;
}

/** For each alias of a recipe node's version, the nodes that may be bound to it (20-1057 for a TABLE node). */
export async function bindingCandidates(
  tenantId: string,
  graph: StoredGraph,
  nodeId: number,
): Promise<{ alias: string; source_node_ids: number[] }[]> {
  const node = findNode(graph, nodeId);
  if (node.node_type !== 'RECIPE') throw new AppError('20-1057');
  const version = await recipeVersions.get(tenantId, node.recipe_id, node.recipe_version_number);
  const candidates = candidatesFor(graph.nodes, nodeId);
  return version.aliases.map((alias) => ({ alias, source_node_ids: candidates }));
}
