import { setToggleOverride, toggleNamed, toggleView } from '../../shared/features/store';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { getTenant } from '../../shared/tenants/store';
import { featureToggleRoutes } from './toggle-routes';

export const handler = httpHandler(featureToggleRoutes.setToggleOverride, async ({ params, body }) => {
  const name = toggleNamed(params.toggle_name);
  const { strategy } = body;
  if (strategy !== 'on' && strategy !== 'off') throw new AppError('50-1005', { extraDetails: { strategy } });
  // Only a tenant of the registry has overrides (50-1003 otherwise): tenants are never deleted, so it stays one.
  await getTenant(params.tenant_id);
  await setToggleOverride(name, params.tenant_id, strategy);
  return { body: await toggleView(name) };
});
