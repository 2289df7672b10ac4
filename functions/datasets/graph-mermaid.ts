import middy from '@middy/core';
import { dataTableStore } from '../../shared/data-tables/store';
import { graphs } from '../../shared/datasets/graphs';
import { mermaidOf } from '../../shared/datasets/mermaid';
import { outputNodeOf, recipeVersionsOf } from '../../shared/datasets/response';
import { runContextOf, runStatusOf } from '../../shared/datasets/run-view';
import { authorize, observed, type ApiEvent, type ApiResult, type RouteHandler } from '../../shared/http/handler';
import { parseRequest } from '../../shared/http/request';
import type { RouteRequest } from '../../shared/http/route';
import { recipeStore } from '../../shared/recipes/store';
import { datasetRoutes } from './routes';

const route = datasetRoutes.graphMermaid;

/**
 * GET .../graph.mmd: the graph as Mermaid text (text/vnd.mermaid), not JSON, so it is
 * answered here rather than through httpHandler's JSON response, with the same
 * authorization, validation, access log and problem answers.
 */
const mermaid = middy<ApiEvent, ApiResult>()
  .use(observed(route.operationId))
  .handler(async (event) => {
    const { tenantId } = authorize(event, route.permission);
    // parseRequest checked the parameters against the route's schema (as httpHandler does).
    const params = parseRequest(route, event).params as RouteRequest<typeof route>['params'];
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
    return {
      statusCode: route.response.status,
      headers: { 'content-type': 'text/vnd.mermaid; charset=utf-8', 'x-trace-id': event.requestContext.requestId },
      body: mermaidOf(graph, names, outputNodeOf(graph)),
    };
  });

export const handler: RouteHandler<typeof route> = Object.assign(mermaid, { route });
