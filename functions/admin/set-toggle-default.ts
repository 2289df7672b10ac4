import { setToggleDefault, toggleNamed, toggleView } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { featureToggleRoutes } from './toggle-routes';

export const handler = httpHandler(featureToggleRoutes.setToggleDefault, async ({ params, body }) => {
  const name = toggleNamed(params.toggle_name);
  await setToggleDefault(name, body);
  return { body: await toggleView(name) };
});
