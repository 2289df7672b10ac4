import { graphs } from '../../shared/datasets/graphs';
import { datasetStore } from '../../shared/datasets/store';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

/**
 * The versions go first, each with its uses, then the dataset's item with the head. A
 * deletion cut short leaves a dataset with fewer versions, which a second DELETE finishes;
 * never a node whose table could be deleted under it.
 */
export const handler = httpHandler(datasetRoutes.delete, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  const id = params.dataset_id;
  const current = await datasetStore.get(tenantId, id);
  if (query.lock_version !== undefined && query.lock_version !== current.lock_version) throw new AppError('10-1006');
  await graphs.purge(tenantId, id);
  await datasetStore.delete(tenantId, id, { expectedLockVersion: query.lock_version, related: [graphs.headDeletion(tenantId, id)] });
  return { body: undefined };
});
