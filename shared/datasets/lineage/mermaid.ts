import { escape } from '../mermaid';
import type { StoredGraph } from '../items';
import type { StoredNodeLineage } from '../../model/stored-lineage';

/**
 * A graph version's column lineage as a Mermaid flowchart, beside graph.mmd: each node a
 * subgraph of its columns, each dependency an arrow labelled how (dotted for filters, joins
 * and the other kinds that decide rows rather than give values). Names go through the graph
 * picture's escaping, so none can change the diagram.
 */
const DIRECT = new Set(['copied', 'transformed', 'aggregated']);

export function lineageMermaid(
  graph: StoredGraph,
  lineage: readonly StoredNodeLineage[],
  names: ReadonlyMap<number, string>,
): string {
  const lines = [
    'flowchart LR',
    `  %% column lineage of dataset ${graph.dataset_id} ${escape(graph.version_display_name)}`,
  ];
  const ids = new Map<string, string>();
  const idOf = (nodeId: number, column: string) => {
    const key = `${nodeId}\u0000${column.toLowerCase()}`;
    if (!ids.has(key)) ids.set(key, `c${nodeId}_${ids.size}`);
    return ids.get(key)!;
  };
  for (const entry of lineage) {
    lines.push(
      `  subgraph n${entry.node_id}["${escape(`${entry.node_id}: ${names.get(entry.node_id) ?? `node ${entry.node_id}`}`)}"]`,
    );
    for (const column of entry.columns) {
      const label = column.name ?? `#${column.position}`;
      const mark = column.unknown ? ' (?)' : '';
      lines.push(`    ${idOf(entry.node_id, label)}["${escape(label + mark)}"]`);
    }
    if (entry.unknown) lines.push(`    n${entry.node_id}_unknown["${escape(`? ${entry.unknown}`)}"]`);
    lines.push('  end');
  }
  for (const entry of lineage) {
    for (const column of entry.columns) {
      const target = idOf(entry.node_id, column.name ?? `#${column.position}`);
      for (const dependency of column.from) {
        const arrow = DIRECT.has(dependency.how) ? '-->' : '-.->';
        lines.push(`  ${idOf(dependency.node_id, dependency.column)} ${arrow}|${dependency.how}| ${target}`);
      }
    }
    for (const dependency of entry.indirect)
      lines.push(`  ${idOf(dependency.node_id, dependency.column)} -.->|${dependency.how}| n${entry.node_id}`);
  }
  return `${lines.join('\n')}\n`;
}
