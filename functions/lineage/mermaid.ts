import { dataTableStore } from '../../shared/data-tables/store';
import { graphs } from '../../shared/datasets/graphs';
import { textHandler } from '../../shared/http/handler';
import { currentLineage } from '../../shared/datasets/lineage/graph-lineage';
import { lineageMermaid } from '../../shared/datasets/lineage/mermaid';
import { recipeStore } from '../../shared/recipes/store';
import { lineageRoutes } from './routes';

/** GET .../lineage.mmd: the column lineage as Mermaid text, answered as graph.mmd is. */
export const handler = textHandler(
  lineageRoutes.graphLineageMermaid,
  'text/vnd.mermaid; charset=utf-8',
  async ({ principal: { tenantId }, params }) => {
    const graph = await graphs.get(tenantId, params.dataset_id, params.version_number);
    const tableIds = graph.nodes.flatMap((node) => (node.node_type === 'TABLE' ? [node.data_table_id] : []));
    const recipeIds = graph.nodes.flatMap((node) => (node.node_type === 'RECIPE' ? [node.recipe_id] : []));
    const [lineage, tables, recipes] = await Promise.all([
      currentLineage(tenantId, graph),
      dataTableStore.findMany(tenantId, tableIds),
      recipeStore.findMany(tenantId, recipeIds),
    ]);
    const names = new Map(
      graph.nodes.map((node) => [
        node.id,
        node.node_type === 'TABLE'
          ? (tables.get(node.data_table_id)?.data.name ?? `data table ${node.data_table_id}`)
          : (recipes.get(node.recipe_id)?.data.name ?? `recipe ${node.recipe_id}`),
      ]),
    );
    return lineageMermaid(graph, lineage, names);
  },
);
