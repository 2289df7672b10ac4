import type { Actor } from '../db/actor';
import { AppError, notFound, validationError, versionConflict } from '../errors/app-error';
import { targetOf, type BindingInput } from './bindings';
import { graphs } from './graphs';
import type { StoredGraph, StoredNode, StoredTableNode } from './items';

/**
 * The rules of a graph's nodes (spec 2.8). Each change is judged on the graph as read inside
 * graphs.edit, so a rule holds on the graph that is written, whatever ran at the same time.
 */

/**
 * TABLE nodes a graph version may hold (decision: the spec sets none). Every use is counted
 * in the graph's transactions, whose 100 items bound how many tables and versions one write
 * may touch; thirty tables, each pinned, leave room for the twenty recipe nodes.
 */
export const MAX_TABLE_NODES = 30;

/** Node types: what the API accepts; any other is 20-1012. */
const SUPPORTED_NODE_TYPES: readonly string[] = ['TABLE', 'RECIPE'];

export interface TableNodeInput {
  readonly data_table_id?: number | undefined;
  readonly data_table_version_number?: number | null | undefined;
}

export interface RecipeNodeInput {
  readonly recipe_id?: number | undefined;
  readonly recipe_version_number?: number | undefined;
  readonly source_node_definitions?: readonly BindingInput[] | undefined;
}

export interface NodeAddress {
  readonly tenantId: string;
  readonly actor: Actor;
  readonly datasetId: number;
  readonly versionNumber: number;
}

export function assertNodeType(nodeType: string): void {
  if (!SUPPORTED_NODE_TYPES.includes(nodeType)) throw new AppError('20-1012', { params: [nodeType] });
}

export function findNode(graph: StoredGraph, nodeId: number): StoredNode {
  const node = graph.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) throw notFound('dataset node', `${graph.dataset_id}/${graph.version_number}/${nodeId}`);
  return node;
}

export async function addTableNode(at: NodeAddress, input: TableNodeInput): Promise<StoredNode> {
  const tableId = input.data_table_id;
  if (tableId === undefined) throw validationError({ data_table_id: 'is required for a TABLE node' });
  const { result } = await graphs.edit(at.tenantId, at.actor, at.datasetId, at.versionNumber, (graph, now) => {
    if (graph.nodes.filter((node) => node.node_type === 'TABLE').length >= MAX_TABLE_NODES) {
      throw validationError({ node_type: `a graph version holds at most ${MAX_TABLE_NODES} TABLE nodes` });
    }
    const node: StoredTableNode = {
      id: graph.next_node_id,
      lock_version: 0,
      node_type: 'TABLE',
      data_table_id: tableId,
      data_table_version_number: input.data_table_version_number ?? null,
      created_by: at.actor,
      created_date: now,
      last_modified_by: at.actor,
      last_modified_date: now,
    };
    return { nodes: [...graph.nodes, node], nextNodeId: graph.next_node_id + 1, result: node };
  });
  return result;
}

/**
 * Fields omitted stay; a version of null means the latest COMPLETED one at run time, and a
 * pinned version is dropped when the node moves to another table without naming one.
 */
export async function updateTableNode(
  at: NodeAddress,
  nodeId: number,
  lockVersion: number,
  input: TableNodeInput,
): Promise<StoredNode> {
  const { result } = await graphs.edit(at.tenantId, at.actor, at.datasetId, at.versionNumber, (graph, now) => {
    const current = findNode(graph, nodeId);
    if (current.node_type !== 'TABLE')
      throw validationError({ node_type: `node ${nodeId} is a ${current.node_type} node` });
    if (current.lock_version !== lockVersion) throw versionConflict();
    const tableId = input.data_table_id ?? current.data_table_id;
    const moved = tableId !== current.data_table_id;
    const versionNumber =
      input.data_table_version_number === undefined
        ? moved
          ? null
          : current.data_table_version_number
        : input.data_table_version_number;
    const node: StoredTableNode = {
      ...current,
      data_table_id: tableId,
      data_table_version_number: versionNumber,
      lock_version: current.lock_version + 1,
      last_modified_by: at.actor,
      last_modified_date: now,
    };
    return { nodes: graph.nodes.map((candidate) => (candidate.id === nodeId ? node : candidate)), result: node };
  });
  return result;
}

/**
 * Deletes a node. A TABLE node a recipe node reads from stays (20-1033); a recipe node goes
 * with its edges, including the binding of the node it fed, which then needs a new source.
 */
export async function deleteNode(at: NodeAddress, nodeId: number): Promise<void> {
  await graphs.edit(at.tenantId, at.actor, at.datasetId, at.versionNumber, (graph, now) => {
    const node = findNode(graph, nodeId);
    const target = targetOf(graph.nodes, nodeId);
    if (node.node_type === 'TABLE' && target !== undefined) throw new AppError('20-1033', { params: [nodeId, target] });
    const nodes = graph.nodes
      .filter((candidate) => candidate.id !== nodeId)
      .map((candidate) =>
        candidate.id === target && candidate.node_type === 'RECIPE'
          ? {
              ...candidate,
              sources: candidate.sources.filter((binding) => binding.source_node_id !== nodeId),
              lock_version: candidate.lock_version + 1,
              last_modified_by: at.actor,
              last_modified_date: now,
            }
          : candidate,
      );
    return { nodes, result: undefined };
  });
}
