import { graphs } from '../../shared/datasets/graphs';
import { findNode } from '../../shared/datasets/nodes';
import { nodeResponse } from '../../shared/datasets/response';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.getNode, async ({ params, principal }) => {
  const graph = await graphs.get(principal.tenantId, params.dataset_id, params.version_number);
  const node = findNode(graph, params.node_id);
  return { body: await nodeResponse(principal.tenantId, graph, node) };
});
