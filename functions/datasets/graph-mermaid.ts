import { dataTableStore } from '../../shared/data-tables/store';
import { graphs } from '../../shared/datasets/graphs';
import { mermaidOf } from '../../shared/datasets/mermaid';
import { outputNodeOf, recipeVersionsOf } from '../../shared/datasets/response';
import { runContextOf, runStatusOf } from '../../shared/datasets/run-view';
import { textHandler } from '../../shared/http/handler';
import { recipeStore } from '../../shared/recipes/store';
import { datasetRoutes } from './routes';

/** GET .../graph.mmd: the graph as Mermaid text (text/vnd.mermaid), not JSON. */
export const handler = textHandler(
  datasetRoutes.graphMermaid,
  'text/vnd.mermaid; charset=utf-8',
  async ({ principal: { tenantId }, params }) => {
    const graph = await graphs.get(tenantId, params.dataset_id, params.version_number);
    const tableIds = graph.nodes.flatMap((node) => (node.node_type === 'TABLE' ? [node.data_table_id] : []));
    const recipeIds = graph.nodes.flatMap((node) => (node.node_type === 'RECIPE' ? [node.recipe_id] : []));
    const [tables, recipes, versions] = await Promise.all([
      dataTableStore.findMany(tenantId, tableIds),
      recipeStore.findMany(tenantId, recipeIds),
      recipeVersionsOf(tenantId, graph.nodes),
    ]);
    const runs = await runContextOf(tenantId, graph, versions);
    const names = {
      tables: new Map([...tables].map(([id, table]) => [id, table.data.name])),
      recipes: new Map([...recipes].map(([id, recipe]) => [id, recipe.data.name])),
      runStates: new Map(
        graph.nodes.flatMap((node) =>
          node.node_type === 'RECIPE' ? [[node.id, runStatusOf(node, runs).run_state] as const] : [],
        ),
      ),
    };
    return mermaidOf(graph, names, outputNodeOf(graph));
  },
);
