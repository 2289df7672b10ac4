import { graphs } from '../../shared/datasets/graphs';
import { fullGraph } from '../../shared/datasets/response';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.listNodes, async ({ params, principal }) => ({
  body: {
    nodes: (
      await fullGraph(
        principal.tenantId,
        await graphs.get(principal.tenantId, params.dataset_id, params.version_number),
      )
    ).nodes,
  },
}));
