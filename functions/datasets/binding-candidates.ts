import { graphs } from '../../shared/datasets/graphs';
import { bindingCandidates } from '../../shared/datasets/recipe-nodes';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.bindingCandidates, async ({ params, principal }) => {
  const graph = await graphs.get(principal.tenantId, params.dataset_id, params.version_number);
  return {
    body: { node_id: params.node_id, candidates: await bindingCandidates(principal.tenantId, graph, params.node_id) },
  };
});
