import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { graphs } from '../../shared/datasets/graphs';
import { fullGraph } from '../../shared/datasets/response';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.createVersion, async ({ params, body, principal }) => {
  if (body.dataset_id !== params.dataset_id) throw new AppError('20-1005');
  const source = body.source_transformation_graph_version_number ?? undefined;
  const graph = await graphs.create(principal.tenantId, actorOf(principal), params.dataset_id, source);
  return {
    status: 201,
    body: { latest_transformation_graph: await fullGraph(principal.tenantId, graph) },
    headers: { location: `${API_BASE_PATH}/datasets/${graph.dataset_id}/versions/${graph.version_number}` },
  };
});
