import type { StoredGraph } from './items';

/**
 * A graph version as a Mermaid flowchart, for people who would rather look than read: data
 * tables as cylinders, recipe nodes as boxes, edges labelled with their aliases, the output
 * node marked. Names come from `names` (read by the caller); text is escaped the way Mermaid
 * reads it (#quot; and friends), so no name can change the diagram's structure.
 */
export interface GraphNames {
  readonly tables: ReadonlyMap<number, string>;
  readonly recipes: ReadonlyMap<number, string>;
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '#quot;', '#': '#35;', '<': '#lt;', '>': '#gt;', '\n': ' ', '\r': ' ' };
const escape = (text: string): string => text.replace(/["#<>\r\n]/g, (character) => ESCAPES[character] ?? character);

export function mermaidOf(graph: StoredGraph, names: GraphNames, outputNodeId: number | null): string {
  const lines = ['flowchart LR', `  %% dataset ${graph.dataset_id} ${escape(graph.version_display_name)}${graph.release_status ? ' (released)' : ' (draft)'}`];
  for (const node of graph.nodes) {
    if (node.node_type === 'TABLE') {
      const table = names.tables.get(node.data_table_id) ?? `data table ${node.data_table_id}`;
      const version = node.data_table_version_number === null ? 'latest COMPLETED' : `version ${node.data_table_version_number}`;
      lines.push(`  n${node.id}[("${escape(`${node.id}: ${table}`)}<br/>${version}")]`);
    } else {
      const recipe = names.recipes.get(node.recipe_id) ?? `recipe ${node.recipe_id}`;
      const output = node.id === outputNodeId ? '<br/>output' : '';
      lines.push(`  n${node.id}["${escape(`${node.id}: ${recipe}`)}<br/>version ${node.recipe_version_number}${output}"]`);
    }
  }
  for (const node of graph.nodes) {
    if (node.node_type !== 'RECIPE') continue;
    for (const binding of node.sources) lines.push(`  n${binding.source_node_id} -->|"${escape(binding.alias)}"| n${node.id}`);
  }
  return `${lines.join('\n')}\n`;
}
