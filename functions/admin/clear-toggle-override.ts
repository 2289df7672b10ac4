import { clearToggleOverride, toggleNamed } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { featureToggleRoutes } from './toggle-routes';

export const handler = httpHandler(featureToggleRoutes.clearToggleOverride, async ({ params }) => {
  await clearToggleOverride(toggleNamed(params.toggle_name), params.tenant_id);
  return { body: undefined };
});
