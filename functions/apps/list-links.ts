import { linkResponse, listLinks } from '../../shared/apps/links';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { APP_LINK_LIST_FIELDS } from '../../shared/model/list-fields';
import { installRoutes } from './install-routes';

/** A link in the store's order (by link id): its position is the id ListQuery breaks ties with. */
interface Listed {
  readonly id: number;
  readonly link: Awaited<ReturnType<typeof listLinks>>[number];
}

/** What a link list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof APP_LINK_LIST_FIELDS> = {
  link_id: { type: 'string', value: ({ link }) => link.link_id },
  last_modified_date: { type: 'datetime', value: ({ link }) => link.last_modified_date },
};

export const handler = httpHandler(installRoutes.listLinks, async ({ query, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const links = await listLinks(principal.tenantId);
  const page = applyListQuery(
    links.map((link, index) => ({ id: index + 1, link })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map(({ link }) => linkResponse(link)) } };
});
