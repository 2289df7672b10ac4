import { graphs } from '../graphs';
import type { StoredGraph } from '../items';
import { notFound } from '../../errors/app-error';
import { logger } from '../../log';
import type { ColumnTrace, GraphLineage, NodeLineage, SourceObject, TracedSource } from '../../model/lineage';
import { compose, type How } from '../../model/lineage-dependencies';
import { traceGraph } from './graph-trace';
import type { StoredColumnLineage, StoredNodeLineage } from '../../model/stored-lineage';
import { sourceObject } from './source-object';

/**
 * Column lineage of a graph version as read (docs/lineage.md): traced again over what it was
 * stored with, so only what moved since (a node, a new COMPLETED data version) is parsed, and
 * stored back when it changed. Only engine routes and workers import this module: tracing
 * parses with DuckDB (test/infra/bundles.test.ts keeps DuckDB out of the other bundles).
 */

/** The version's lineage, up to date; stored with it when it moved. */
export async function currentLineage(tenantId: string, graph: StoredGraph): Promise<StoredNodeLineage[]> {
  const lineage = await traceGraph(tenantId, graph, graph.lineage);
  if (JSON.stringify(lineage) !== JSON.stringify(graph.lineage ?? null)) {
    // A concurrent edit wins: its own next reading traces it.
    await graphs.storeLineage(tenantId, graph, lineage).catch((error: unknown) => {
      logger.warn('column lineage could not be stored', { datasetId: graph.dataset_id, error: error as Error });
    });
  }
  return lineage;
}

export function graphLineageView(graph: StoredGraph, lineage: readonly StoredNodeLineage[]): GraphLineage {
  return {
    dataset_id: graph.dataset_id,
    version_number: graph.version_number,
    nodes: lineage.map((entry) => nodeView(graph, entry)),
  };
}

function nodeView(graph: StoredGraph, entry: StoredNodeLineage): NodeLineage {
  const node = graph.nodes.find((candidate) => candidate.id === entry.node_id)!;
  return {
    node_id: entry.node_id,
    node_type: node.node_type,
    ...(node.node_type === 'TABLE'
      ? { data_table_id: node.data_table_id, data_version_number: entry.data_version_number ?? null }
      : {}),
    columns: entry.columns.map((column) => ({ ...column, from: [...column.from] })),
    indirect: [...entry.indirect],
    ...(entry.unknown === undefined ? {} : { unknown: entry.unknown }),
  };
}

/** The column of a node by name (ignoring case), else by 1-based position; 10-404 otherwise. */
function columnOf(entry: StoredNodeLineage, column: string, at: string): StoredColumnLineage {
  const found =
    entry.columns.find((candidate) => candidate.name === column) ??
    entry.columns.find((candidate) => candidate.name?.toLowerCase() === column.toLowerCase()) ??
    (/^\d+$/.test(column) ? entry.columns[Number(column) - 1] : undefined);
  if (!found) throw notFound('node column', `${at}/${column}`);
  return found;
}

/**
 * One column followed upstream to the data-table columns it comes from, and from those to the
 * objects their data sources read: every dependency on the way with how it composes (a copy of
 * an aggregate is aggregated), each node's filters and joins included.
 */
export async function traceColumn(
  tenantId: string,
  graph: StoredGraph,
  lineage: readonly StoredNodeLineage[],
  nodeId: number,
  column: string,
): Promise<ColumnTrace> {
  const at = `${graph.dataset_id}/${graph.version_number}/${nodeId}`;
  const byNode = new Map(lineage.map((entry) => [entry.node_id, entry]));
  const start = byNode.get(nodeId);
  if (!start) throw notFound('dataset node', at);
  const first = columnOf(start, column, at);
  const path: ColumnTrace['path'] = [];
  const unknown = new Set<string>();
  const reached = new Map<string, { nodeId: number; column: string; how: How }>();
  const pending = [{ nodeId, column: first, how: 'copied' as How, withIndirect: true }];
  const seen = new Set<string>();
  for (let step = pending.shift(); step; step = pending.shift()) {
    const key = `${step.nodeId}\u0000${step.column.position}\u0000${step.how}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = byNode.get(step.nodeId)!;
    if (step.column.unknown)
      unknown.add(`node ${step.nodeId}, column ${step.column.name ?? step.column.position}: ${step.column.unknown}`);
    const toColumn = step.column.name ?? `#${step.column.position}`;
    const node = graph.nodes.find((candidate) => candidate.id === step.nodeId);
    if (node?.node_type === 'TABLE') {
      reached.set(`${step.nodeId}\u0000${toColumn}\u0000${step.how}`, {
        nodeId: step.nodeId,
        column: toColumn,
        how: step.how,
      });
      continue;
    }
    // A node's filters and joins decide the rows of the column, so they are on its path too.
    const dependencies = step.withIndirect ? [...step.column.from, ...entry.indirect] : step.column.from;
    for (const dependency of dependencies) {
      const how = compose(step.how, dependency.how);
      path.push({ ...dependency, how, to_node_id: step.nodeId, to_column: toColumn });
      const source = byNode.get(dependency.node_id);
      const sourceColumn = source?.columns.find(
        (candidate) => candidate.name?.toLowerCase() === dependency.column.toLowerCase(),
      );
      if (!source || !sourceColumn) {
        if (source?.unknown) unknown.add(`node ${dependency.node_id}: ${source.unknown}`);
        else unknown.add(`node ${dependency.node_id} has no traced column ${dependency.column}`);
        continue;
      }
      pending.push({ nodeId: dependency.node_id, column: sourceColumn, how, withIndirect: true });
    }
  }
  return {
    dataset_id: graph.dataset_id,
    version_number: graph.version_number,
    node_id: nodeId,
    column: { ...first, from: [...first.from] },
    path,
    sources: await sourcesOf(tenantId, graph, byNode, [...reached.values()]),
    unknown: [...unknown],
  };
}

async function sourcesOf(
  tenantId: string,
  graph: StoredGraph,
  byNode: ReadonlyMap<number, StoredNodeLineage>,
  reached: readonly { nodeId: number; column: string; how: How }[],
): Promise<TracedSource[]> {
  const objects = new Map<number, Promise<SourceObject | null>>();
  const objectOf = (dataTableId: number) => {
    if (!objects.has(dataTableId)) objects.set(dataTableId, sourceObject(tenantId, dataTableId));
    return objects.get(dataTableId)!;
  };
  return Promise.all(
    reached.map(async ({ nodeId, column, how }) => {
      const node = graph.nodes.find((candidate) => candidate.id === nodeId)!;
      const dataTableId = node.node_type === 'TABLE' ? node.data_table_id : 0;
      return {
        node_id: nodeId,
        data_table_id: dataTableId,
        data_version_number: byNode.get(nodeId)?.data_version_number ?? null,
        column,
        how,
        source_object: await objectOf(dataTableId),
      };
    }),
  );
}

/**
 * Traces a version at run time (the recipe-run worker, before it builds): the run's events
 * read its lineage from the version. Never fails the run: a failure is logged.
 */
export async function refreshLineage(tenantId: string, datasetId: number, versionNumber: number): Promise<void> {
  try {
    const graph = await graphs.find(tenantId, datasetId, versionNumber);
    if (graph) await currentLineage(tenantId, graph);
  } catch (error) {
    logger.warn('column lineage not traced at run time', { datasetId, error: error as Error });
  }
}
