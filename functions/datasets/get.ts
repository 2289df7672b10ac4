import { graphs } from '../../shared/datasets/graphs';
import { datasetResponse } from '../../shared/datasets/response';
import { datasetStore } from '../../shared/datasets/store';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.get, async ({ params, principal }) => {
  const { tenantId } = principal;
  const entity = await datasetStore.get(tenantId, params.dataset_id);
  return { body: datasetResponse(entity, (await graphs.latest(tenantId, [entity.id])).get(entity.id)) };
});
