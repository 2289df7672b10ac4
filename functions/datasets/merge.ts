import { applyDatasetChange } from '../../shared/datasets/update';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

/** RFC 7396 over a flat document: a member sent replaces, null clears, absent stays. */
export const handler = httpHandler(datasetRoutes.merge, async ({ params, body, principal }) => ({
  body: await applyDatasetChange(principal, params.dataset_id, body),
}));
