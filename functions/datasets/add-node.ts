import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { addTableNode, assertNodeType } from '../../shared/datasets/nodes';
import { addRecipeNode } from '../../shared/datasets/recipe-nodes';
import { graphs } from '../../shared/datasets/graphs';
import { nodeResponse } from '../../shared/datasets/response';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.addNode, async ({ params, body, principal }) => {
  if (body.dataset_id !== params.dataset_id) throw new AppError('20-1005');
  assertNodeType(body.node_type);
  const { tenantId } = principal;
  const at = {
    tenantId,
    actor: actorOf(principal),
    datasetId: params.dataset_id,
    versionNumber: params.version_number,
  };
  const node = body.node_type === 'RECIPE' ? await addRecipeNode(at, body) : await addTableNode(at, body);
  return {
    status: 201,
    body: await nodeResponse(tenantId, await graphs.get(tenantId, params.dataset_id, params.version_number), node),
    headers: {
      location: `${API_BASE_PATH}/datasets/${params.dataset_id}/versions/${params.version_number}/nodes/${node.id}`,
    },
  };
});
