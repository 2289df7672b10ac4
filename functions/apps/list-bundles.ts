import { bundleResponse, bundleStore, type Bundle } from '../../shared/apps/bundles';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { BUNDLE_LIST_FIELDS } from '../../shared/model/app-bundle';
import { bundleRoutes } from './bundle-routes';

/** What a bundle list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Bundle, typeof BUNDLE_LIST_FIELDS> = {
  id: { type: 'integer', value: (bundle) => bundle.id },
  name: { type: 'string', value: (bundle) => bundle.data.name },
  description: { type: 'string', value: (bundle) => bundle.data.description },
  published_version: { type: 'integer', value: (bundle) => bundle.data.published_version },
  created_date: { type: 'datetime', value: (bundle) => bundle.created_date },
  last_modified_date: { type: 'datetime', value: (bundle) => bundle.last_modified_date },
};

export const handler = httpHandler(bundleRoutes.list, async ({ query, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const page = applyListQuery(await bundleStore.list(principal.tenantId), query, FIELDS);
  return { body: { ...page, items: page.items.map(bundleResponse) } };
});
