import { linkResponse, listLinks } from '../../shared/apps/links';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { installRoutes } from './install-routes';

export const handler = httpHandler(installRoutes.listLinks, async ({ query, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const all = await listLinks(principal.tenantId);
  const items = all.slice(query.offset, query.offset + query.limit).map(linkResponse);
  return { body: { offset: query.offset, limit: items.length, total: all.length, items } };
});
