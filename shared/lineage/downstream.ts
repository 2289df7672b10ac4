import { datasetStore } from '../datasets/store';
import { graphs } from '../datasets/graphs';
import { outputNodeOf } from '../datasets/response';
import type { StoredGraph } from '../datasets/items';
import { listExportJobs } from '../exports/store';
import { exportStore } from '../exports/target-exports';
import type { DataVersionLineage } from '../model/lineage';
import { transferStore } from '../transfers/store';
import { currentLineage } from '../datasets/lineage/graph-lineage';
import type { StoredNodeLineage } from '../model/stored-lineage';

/**
 * Everything downstream of a data version (docs/lineage.md): the nodes of every graph version
 * that read it (a TABLE node at that version, pinned or the newest COMPLETED when traced) and
 * the recipe nodes whose columns depend on those, then the exports (to targets, direct and
 * multi-part) and the transfers of the data version or of those graph versions. Read over the tenant's datasets,
 * each version's lineage as stored (traced again where it moved).
 */
export async function downstreamOf(
  tenantId: string,
  dataTableId: number,
  versionNumber: number,
): Promise<DataVersionLineage> {
  const nodes: DataVersionLineage['nodes'] = [];
  const graphsReading = new Set<string>();
  for (const dataset of await datasetStore.list(tenantId)) {
    for (const graph of await graphs.list(tenantId, dataset.id).catch(() => [] as StoredGraph[])) {
      const lineage = await currentLineage(tenantId, graph);
      const found = nodesReading(graph, lineage, dataTableId, versionNumber);
      if (found.length === 0) continue;
      nodes.push(...found);
      const output = outputNodeOf(graph);
      if (output !== null && found.some((node) => node.node_id === output))
        graphsReading.add(`${graph.dataset_id}/${graph.version_number}`);
    }
  }
  const reads = (type: string, id: number, version: number) =>
    (type === 'datatable' && id === dataTableId && version === versionNumber) ||
    (type === 'dataset' && graphsReading.has(`${id}/${version}`));
  const [exports, direct, multiPart, transfers] = await Promise.all([
    exportStore.list(tenantId),
    listExportJobs(tenantId, 'DIRECT_EXPORT'),
    listExportJobs(tenantId, 'MULTI_PART_EXPORT'),
    transferStore.list(tenantId),
  ]);
  const jobsReading = (jobs: Awaited<ReturnType<typeof listExportJobs>>) =>
    jobs
      .filter(({ shape }) => reads(shape.source_type, shape.source_id, shape.source_version))
      .map(({ job_id, shape }) => ({
        job_id,
        source_type: shape.source_type,
        source_id: shape.source_id,
        source_version: shape.source_version,
      }));
  return {
    data_table_id: dataTableId,
    version_number: versionNumber,
    nodes,
    exports: exports
      .filter(({ data }) => reads(data.shape.source_type, data.shape.source_id, data.shape.source_version))
      .map(({ id, data }) => ({
        export_id: id,
        source_type: data.shape.source_type,
        source_id: data.shape.source_id,
        source_version: data.shape.source_version,
      })),
    direct_exports: jobsReading(direct),
    multi_part_exports: jobsReading(multiPart),
    transfers: transfers
      .filter(({ data }) => reads(data.source_type, data.source_id, data.source_version))
      .map(({ id, data }) => ({
        transfer_id: id,
        source_type: data.source_type,
        source_id: data.source_id,
        source_version: data.source_version,
      })),
  };
}

/** The graph's nodes that read the data version, with the columns that do: the TABLE nodes, then downstream. */
function nodesReading(
  graph: StoredGraph,
  lineage: readonly StoredNodeLineage[],
  dataTableId: number,
  versionNumber: number,
): DataVersionLineage['nodes'] {
  const reached = new Map<number, Set<string>>();
  for (const node of graph.nodes) {
    const entry = lineage.find((candidate) => candidate.node_id === node.id);
    if (
      node.node_type === 'TABLE' &&
      node.data_table_id === dataTableId &&
      entry?.data_version_number === versionNumber
    )
      reached.set(
        node.id,
        new Set(entry.columns.flatMap((column) => (column.name === null ? [] : [column.name.toLowerCase()]))),
      );
  }
  // Downstream until nothing new: a column reads the version when one of its dependencies (or its node's filters) does.
  for (let changed = reached.size > 0; changed;) {
    changed = false;
    for (const entry of lineage) {
      const readsReached = (dependency: { node_id: number; column: string }) =>
        reached.get(dependency.node_id)?.has(dependency.column.toLowerCase()) ?? false;
      const rowsDecided = entry.indirect.some(readsReached);
      const columns = reached.get(entry.node_id) ?? new Set<string>();
      for (const column of entry.columns) {
        const key = column.name?.toLowerCase() ?? `#${column.position}`;
        if (!columns.has(key) && (rowsDecided || column.from.some(readsReached))) {
          columns.add(key);
          changed = true;
        }
      }
      if (columns.size > 0) reached.set(entry.node_id, columns);
    }
  }
  return [...reached].map(([nodeId, columns]) => ({
    dataset_id: graph.dataset_id,
    version_number: graph.version_number,
    node_id: nodeId,
    node_type: graph.nodes.find((node) => node.id === nodeId)!.node_type,
    columns: [...columns],
  }));
}
