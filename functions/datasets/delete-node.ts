import { actorOf } from '../../shared/db/actor';
import { deleteNode } from '../../shared/datasets/nodes';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.deleteNode, async ({ params, principal }) => {
  const at = {
    tenantId: principal.tenantId,
    actor: actorOf(principal),
    datasetId: params.dataset_id,
    versionNumber: params.version_number,
  };
  await deleteNode(at, params.node_id);
  return { body: undefined };
});
