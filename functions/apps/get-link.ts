import { getLink, linkResponse } from '../../shared/apps/links';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.getLink, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  return { body: linkResponse(await getLink(principal.tenantId, params.link_id)) };
});
