import { applyDatasetChange } from '../../shared/datasets/update';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.update, async ({ params, body, principal }) => {
  // A full update: description and tags not sent are cleared; the name, required in storage, stays when omitted.
  const change = {
    id: body.id,
    lock_version: body.lock_version,
    name: body.name,
    description: body.description ?? null,
    tags: body.tags ?? null,
  };
  return { body: await applyDatasetChange(principal, params.dataset_id, change) };
});
