import middy from '@middy/core';
import { dataTableStore } from '../../shared/data-tables/store';
import { graphs } from '../../shared/datasets/graphs';
import { authorize, observed, type ApiEvent, type ApiResult, type RouteHandler } from '../../shared/http/handler';
import { parseRequest } from '../../shared/http/request';
import type { RouteRequest } from '../../shared/http/route';
import { currentLineage } from '../../shared/lineage/graph-lineage';
import { lineageMermaid } from '../../shared/lineage/mermaid';
import { recipeStore } from '../../shared/recipes/store';
import { lineageRoutes } from './routes';

const route = lineageRoutes.graphLineageMermaid;

/**
 * GET .../lineage.mmd: the column lineage as Mermaid text, answered as graph.mmd is
 * (functions/datasets/graph-mermaid.ts): the same authorization, validation, access log and problems.
 */
const mermaid = middy<ApiEvent, ApiResult>()
  .use(observed(route.operationId))
  .handler(async (event) => {
    const { tenantId } = authorize(event, route.permission);
    const params = parseRequest(route, event).params as RouteRequest<typeof route>['params'];
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
    return {
      statusCode: route.response.status,
      headers: { 'content-type': 'text/vnd.mermaid; charset=utf-8', 'x-trace-id': event.requestContext.requestId },
      body: lineageMermaid(graph, lineage, names),
    };
  });

export const handler: RouteHandler<typeof route> = Object.assign(mermaid, { route });
