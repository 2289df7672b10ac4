import { actorOf } from '../../shared/db/actor';
import { releaseGraph } from '../../shared/datasets/release';
import { fullGraph } from '../../shared/datasets/response';
import { httpHandler } from '../../shared/http/handler';
import { datasetReleaseRoutes } from './release-routes';

export const handler = httpHandler(datasetReleaseRoutes.release, async ({ params, principal }) => ({
  body: await fullGraph(
    principal.tenantId,
    await releaseGraph(principal.tenantId, actorOf(principal), params.dataset_id, params.version_number),
  ),
}));
