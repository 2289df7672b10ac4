import { graphs } from '../../shared/datasets/graphs';
import { removeRunsOf } from '../../shared/datasets/run-cleanup';
import { liveRun } from '../../shared/datasets/run-lock';
import { datasetStore } from '../../shared/datasets/store';
import { AppError, versionConflict } from '../../shared/errors/app-error';
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
  if (query.lock_version !== undefined && query.lock_version !== current.lock_version) throw versionConflict();
  // A live run refuses the deletion before any version goes (each version's own write checks it too).
  const versions = await graphs.list(tenantId, id);
  for (const graph of versions) {
    const running = await liveRun(tenantId, id, graph.version_number);
    if (running) throw new AppError('20-1034', { params: [running.node_id] });
  }
  await graphs.purge(tenantId, id);
  for (const graph of versions) await removeRunsOf(tenantId, id, graph.version_number);
  await datasetStore.delete(tenantId, id, {
    expectedLockVersion: query.lock_version,
    related: [graphs.headDeletion(tenantId, id)],
  });
  return { body: undefined };
});
