import { toggleViews } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { FeatureToggleResponse } from '../../shared/model/feature-toggle';
import type { FEATURE_TOGGLE_LIST_FIELDS } from '../../shared/model/list-fields';
import { featureToggleRoutes } from './toggle-routes';

/** A toggle in the catalogue's order: its position is the id ListQuery breaks ties with. */
interface Listed {
  readonly id: number;
  readonly toggle: FeatureToggleResponse;
}

/** What a toggle list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof FEATURE_TOGGLE_LIST_FIELDS> = {
  name: { type: 'string', value: ({ toggle }) => toggle.name },
  description: { type: 'string', value: ({ toggle }) => toggle.description },
  available: { type: 'boolean', value: ({ toggle }) => toggle.available },
  default: { type: 'string', value: ({ toggle }) => toggle.default.strategy },
};

export const handler = httpHandler(featureToggleRoutes.listToggles, async ({ query }) => {
  // A malformed filter or sort is refused before the store is read: compiling them over no records checks them.
  applyListQuery([], query, FIELDS);
  const toggles = await toggleViews();
  const page = applyListQuery(
    toggles.map((toggle, index) => ({ id: index + 1, toggle })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map(({ toggle }) => toggle) } };
});
