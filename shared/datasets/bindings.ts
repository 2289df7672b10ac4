import { AppError } from '../errors/app-error';
import type { StoredBinding, StoredNode } from './items';

/**
 * The rules of a recipe node's bindings (spec 2.8, errors 20-10xx): one source per alias of
 * the recipe version, each source feeding one node only, and no cycle. Judged on the graph as
 * read inside graphs.edit, so concurrent edits are judged one after the other.
 */

/** Recipe nodes a dataset's graph version may hold (spec 8). */
export const MAX_RECIPE_NODES = 20;

export interface BindingInput {
  readonly source_node_id: number;
  readonly alias: string;
}

/** The recipe node a node feeds, if any: a node has at most one outgoing edge (20-1050). */
export function targetOf(nodes: readonly StoredNode[], sourceId: number): number | undefined {
  return nodes.find(
    (node) => node.node_type === 'RECIPE' && node.sources.some((binding) => binding.source_node_id === sourceId),
  )?.id;
}

/** The nodes that read, directly or not, from `start`: binding one of them to `start` closes a cycle. */
export function downstreamOf(nodes: readonly StoredNode[], start: number): Set<number> {
  const reached = new Set<number>();
  const pending = [start];
  while (pending.length > 0) {
    const current = pending.pop();
    const target = current === undefined ? undefined : targetOf(nodes, current);
    if (target !== undefined && !reached.has(target)) {
      reached.add(target);
      pending.push(target);
    }
  }
  return reached;
}

const lower = (text: string): string => text.toLowerCase();

/**
 * Checks the sources of recipe node `self` (new or existing) against the recipe version's
 * aliases and the graph, and answers the bindings to store, each alias spelled as the version
 * spells it. For a single-source recipe sent several sources, 20-1008 (several TABLE nodes)
 * and 20-1036 (several recipe nodes) say what is wrong more precisely than 20-1049.
 */
export function checkBindings(
  nodes: readonly StoredNode[],
  self: number,
  aliases: readonly string[],
  sources: readonly BindingInput[],
): StoredBinding[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  if (aliases.length === 1 && sources.length > 1) {
    const types = sources.map((source) => byId.get(source.source_node_id)?.node_type);
    if (types.filter((type) => type === 'TABLE').length > 1) throw new AppError('20-1008');
    if (types.filter((type) => type === 'RECIPE').length > 1) throw new AppError('20-1036');
  }
  if (sources.length !== aliases.length) throw new AppError('20-1049', { params: [aliases.length, sources.length] });
  const seenAliases = new Set<string>();
  const seenSources = new Set<number>();
  for (const source of sources) {
    if (seenAliases.has(lower(source.alias))) throw new AppError('20-1051', { params: [source.alias] });
    seenAliases.add(lower(source.alias));
    if (seenSources.has(source.source_node_id)) throw new AppError('20-1052', { params: [source.source_node_id] });
    seenSources.add(source.source_node_id);
  }
  const expected = new Map(aliases.map((alias) => [lower(alias), alias]));
  if (sources.some((source) => !expected.has(lower(source.alias))))
    throw new AppError('20-1055', { params: [aliases.join(', ')] });
  const downstream = downstreamOf(nodes, self);
  return sources.map((source) => {
    const id = source.source_node_id;
    if (id !== self && !byId.has(id)) throw new AppError('20-1038');
    if (id === self || downstream.has(id)) throw new AppError('20-1056', { params: [id] });
    const target = targetOf(nodes, id);
    if (target !== undefined && target !== self) throw new AppError('20-1050', { params: [id] });
    return { source_node_id: id, alias: expected.get(lower(source.alias)) ?? source.alias };
  });
}

/** The nodes that may be bound to an alias of recipe node `self` without breaking a rule. */
export function candidatesFor(nodes: readonly StoredNode[], self: number): number[] {
  const downstream = downstreamOf(nodes, self);
  return nodes
    .filter((node) => node.id !== self && !downstream.has(node.id))
    .filter((node) => {
      const target = targetOf(nodes, node.id);
      return target === undefined || target === self;
    })
    .map((node) => node.id);
}
