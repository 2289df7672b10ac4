import { graphs } from '../../shared/datasets/graphs';
import { httpHandler } from '../../shared/http/handler';
import { currentLineage, traceColumn } from '../../shared/datasets/lineage/graph-lineage';
import { lineageRoutes } from './routes';

export const handler = httpHandler(lineageRoutes.columnLineage, async ({ params, query, principal }) => {
  const graph = await graphs.get(principal.tenantId, params.dataset_id, params.version_number);
  const lineage = await currentLineage(principal.tenantId, graph);
  return { body: await traceColumn(principal.tenantId, graph, lineage, params.node_id, query.column) };
});
