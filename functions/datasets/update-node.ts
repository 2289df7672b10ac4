import { actorOf } from '../../shared/db/actor';
import { assertNodeType, updateTableNode } from '../../shared/datasets/nodes';
import { updateRecipeNode } from '../../shared/datasets/recipe-nodes';
import { graphs } from '../../shared/datasets/graphs';
import { nodeResponse } from '../../shared/datasets/response';
import { AppError, validationError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.updateNode, async ({ params, body, principal }) => {
  if (body.dataset_id !== params.dataset_id) throw new AppError('20-1005');
  if (body.id !== params.node_id) throw validationError({ id: 'must be the node id of the path' });
  assertNodeType(body.node_type);
  const { tenantId } = principal;
  const at = {
    tenantId,
    actor: actorOf(principal),
    datasetId: params.dataset_id,
    versionNumber: params.version_number,
  };
  const node =
    body.node_type === 'RECIPE'
      ? await updateRecipeNode(at, params.node_id, body.lock_version, body)
      : await updateTableNode(at, params.node_id, body.lock_version, body);
  return {
    body: await nodeResponse(tenantId, await graphs.get(tenantId, params.dataset_id, params.version_number), node),
  };
});
