import { dataSourceResponse } from '../../shared/data-sources/response';
import { dataSourceStore } from '../../shared/data-sources/store';
import { applyUpdate, assertSameId, mergedDocument } from '../../shared/data-sources/update';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.merge, async ({ params, body, principal }) => {
  assertSameId(params.data_source_id, body.id);
  const current = await dataSourceStore.get(principal.tenantId, params.data_source_id);
  return { body: dataSourceResponse(await applyUpdate(principal, current, mergedDocument(current, body))) };
});
