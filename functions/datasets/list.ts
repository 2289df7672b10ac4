import { graphs } from '../../shared/datasets/graphs';
import { datasetResponse } from '../../shared/datasets/response';
import { datasetStore, type DatasetEntity } from '../../shared/datasets/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { DATASET_LIST_FIELDS } from '../../shared/model/list-fields';
import { datasetRoutes } from './routes';

/** What a dataset list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<DatasetEntity, typeof DATASET_LIST_FIELDS> = {
  id: { type: 'integer', value: (entity) => entity.id },
  name: { type: 'string', value: (entity) => entity.data.name },
  description: { type: 'string', value: (entity) => entity.data.description },
  tags: { type: 'string-list', value: (entity) => entity.data.tags },
  created_date: { type: 'datetime', value: (entity) => entity.created_date },
  last_modified_date: { type: 'datetime', value: (entity) => entity.last_modified_date },
};

/** One Query for the datasets, then batches for the latest graph of those on the page. */
export const handler = httpHandler(datasetRoutes.list, async ({ query, principal }) => {
  const { tenantId } = principal;
  const page = applyListQuery(await datasetStore.list(tenantId), query, FIELDS);
  const latest = await graphs.latest(
    tenantId,
    page.items.map((entity) => entity.id),
  );
  return { body: { ...page, items: page.items.map((entity) => datasetResponse(entity, latest.get(entity.id))) } };
});
