import { linkResponse, putLink } from '../../shared/apps/links';
import { actorOf } from '../../shared/db/actor';
import { AppError } from '../../shared/errors/app-error';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.putLink, async ({ params, body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  if (body.link_id !== undefined && body.link_id !== params.link_id)
    throw new AppError('80-8018', { params: [params.link_id, body.link_id] });
  return { body: linkResponse(await putLink(principal.tenantId, actorOf(principal), params.link_id, body.details)) };
});
