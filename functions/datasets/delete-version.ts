import { graphs } from '../../shared/datasets/graphs';
import { removeRunsOf } from '../../shared/datasets/run-cleanup';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.deleteVersion, async ({ params, principal }) => {
  await graphs.remove(principal.tenantId, params.dataset_id, params.version_number);
  await removeRunsOf(principal.tenantId, params.dataset_id, params.version_number);
  return { body: undefined };
});
