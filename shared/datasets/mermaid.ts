import type { RecipeRunState } from '../model/recipe-run';
import type { StoredGraph } from './items';

/**
 * A graph version as a Mermaid flowchart, for people who would rather look than read: data
 * tables as cylinders, recipe nodes as boxes with their run state once they ran (coloured by
 * it), edges labelled with their aliases, the output node marked. Names and states come from
 * `names` (read by the caller); text is escaped the way Mermaid reads it (#quot; and friends),
 * so no name can change the diagram's structure.
 */
export interface GraphNames {
  readonly tables: ReadonlyMap<number, string>;
  readonly recipes: ReadonlyMap<number, string>;
  readonly runStates: ReadonlyMap<number, RecipeRunState>;
}

/** The colour of each run state a picture shows (a node that never ran keeps the default). */
const STATE_STYLES: Readonly<Record<Exclude<RecipeRunState, 'NOT_RUN'>, string>> = {
  QUEUED: 'fill:#e7f1ff,stroke:#0d6efd',
  RUNNING: 'fill:#cfe2ff,stroke:#0d6efd',
  SUCCEEDED: 'fill:#d1e7dd,stroke:#198754',
  FAILED: 'fill:#f8d7da,stroke:#dc3545',
  STALE: 'fill:#fff3cd,stroke:#ffc107',
  ABORTED: 'fill:#e2e3e5,stroke:#6c757d',
};

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '#quot;',
  '#': '#35;',
  '<': '#lt;',
  '>': '#gt;',
  '\n': ' ',
  '\r': ' ',
};
/** Text as Mermaid reads it inside a quoted label: no character of it can change the diagram. */
export const escape = (text: string): string =>
  text.replace(/["#<>\r\n]/g, (character) => ESCAPES[character] ?? character);

export function mermaidOf(graph: StoredGraph, names: GraphNames, outputNodeId: number | null): string {
  const lines = [
    'flowchart LR',
    `  %% dataset ${graph.dataset_id} ${escape(graph.version_display_name)}${graph.release_status ? ' (released)' : ' (draft)'}`,
  ];
  for (const node of graph.nodes) {
    if (node.node_type === 'TABLE') {
      const table = names.tables.get(node.data_table_id) ?? `data table ${node.data_table_id}`;
      const version =
        node.data_table_version_number === null ? 'latest COMPLETED' : `version ${node.data_table_version_number}`;
      lines.push(`  n${node.id}[("${escape(`${node.id}: ${table}`)}<br/>${version}")]`);
    } else {
      const recipe = names.recipes.get(node.recipe_id) ?? `recipe ${node.recipe_id}`;
      const output = node.id === outputNodeId ? '<br/>output' : '';
      const state = names.runStates.get(node.id);
      const shown = state === undefined || state === 'NOT_RUN' ? '' : `<br/>${state}`;
      lines.push(
        `  n${node.id}["${escape(`${node.id}: ${recipe}`)}<br/>version ${node.recipe_version_number}${shown}${output}"]`,
      );
    }
  }
  for (const node of graph.nodes) {
    if (node.node_type !== 'RECIPE') continue;
    for (const binding of node.sources)
      lines.push(`  n${binding.source_node_id} -->|"${escape(binding.alias)}"| n${node.id}`);
  }
  for (const [state, style] of Object.entries(STATE_STYLES)) {
    const nodes = graph.nodes.filter((node) => names.runStates.get(node.id) === state).map((node) => `n${node.id}`);
    if (nodes.length > 0) lines.push(`  classDef ${state} ${style}`, `  class ${nodes.join(',')} ${state}`);
  }
  return `${lines.join('\n')}\n`;
}
