import { identityProvider } from '../../shared/identity/provider';
import type { Role } from '../../shared/identity/roles';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { ROLE_LIST_FIELDS } from '../../shared/model/list-fields';
import { tokenRoutes } from './routes';

/** A role in the provider's order (built-in roles first): its position is the id ListQuery breaks ties with. */
interface Listed {
  readonly id: number;
  readonly role: Role;
}

/** What a role list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof ROLE_LIST_FIELDS> = {
  role_id: { type: 'string', value: ({ role }) => role.role_id },
  name: { type: 'string', value: ({ role }) => role.name },
  permissions: { type: 'string-list', value: ({ role }) => role.permissions },
  built_in: { type: 'boolean', value: ({ role }) => role.built_in },
};

export const handler = httpHandler(tokenRoutes.listRoles, async ({ query, principal }) => {
  // A malformed filter or sort is refused before the provider is asked: compiling them over no records checks them.
  applyListQuery([], query, FIELDS);
  const roles = await identityProvider().roles(principal.tenantId);
  const page = applyListQuery(
    roles.map((role, index) => ({ id: index + 1, role })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map(({ role }) => role) } };
});
