import { graphs } from '../../shared/datasets/graphs';
import { httpHandler } from '../../shared/http/handler';
import { currentLineage, graphLineageView } from '../../shared/datasets/lineage/graph-lineage';
import { lineageRoutes } from './routes';

export const handler = httpHandler(lineageRoutes.graphLineage, async ({ params, principal }) => {
  const graph = await graphs.get(principal.tenantId, params.dataset_id, params.version_number);
  return { body: graphLineageView(graph, await currentLineage(principal.tenantId, graph)) };
});
