import { deleteLink } from '../../shared/apps/links';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.deleteLink, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  await deleteLink(principal.tenantId, params.link_id);
  return { body: undefined };
});
