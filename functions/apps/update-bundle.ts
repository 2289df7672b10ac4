import { bundleResponse, bundleStore } from '../../shared/apps/bundles';
import { actorOf } from '../../shared/db/actor';
import { AppError } from '../../shared/errors/app-error';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { bundleRoutes } from './bundle-routes';

export const handler = httpHandler(bundleRoutes.update, async ({ params, body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  if (body.bundle_id !== undefined && body.bundle_id !== params.bundle_id)
    throw new AppError('80-8012', { params: [body.bundle_id, params.bundle_id] });
  const current = await bundleStore.get(principal.tenantId, params.bundle_id);
  const updated = await bundleStore.replace(principal.tenantId, actorOf(principal), current, body.lock_version, {
    ...current.data,
    name: body.name,
    description: body.description ?? null,
  });
  return { body: bundleResponse(updated) };
});
