import { toggleNamed, toggleView } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { featureToggleRoutes } from './toggle-routes';

export const handler = httpHandler(featureToggleRoutes.getToggle, async ({ params }) => ({
  body: await toggleView(toggleNamed(params.toggle_name)),
}));
