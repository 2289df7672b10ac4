import { graphs } from '../../shared/datasets/graphs';
import { edgesOf } from '../../shared/datasets/response';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.listEdges, async ({ params, principal }) => ({
  body: { edges: edgesOf(await graphs.get(principal.tenantId, params.dataset_id, params.version_number)) },
}));
