import { toggleViews } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { featureToggleRoutes } from './toggle-routes';

export const handler = httpHandler(featureToggleRoutes.listToggles, async () => {
  const items = await toggleViews();
  return { body: { offset: 0, limit: items.length, total: items.length, items } };
});
