import type { ClientRecord } from '../../shared/auth/client-store';
import { roleIdsOf } from '../../shared/identity/clients';
import { identityProvider } from '../../shared/identity/provider';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { TOKEN_LIST_FIELDS } from '../../shared/model/list-fields';
import { tokenResponse } from './response';
import { tokenRoutes } from './routes';

/** A client in creation order: its position is the id ListQuery breaks ties with. */
interface Listed {
  readonly id: number;
  readonly client: ClientRecord;
}

/** What a token list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof TOKEN_LIST_FIELDS> = {
  client_id: { type: 'string', value: ({ client }) => client.client_id },
  description: { type: 'string', value: ({ client }) => client.description },
  created_at: { type: 'datetime', value: ({ client }) => client.created_date },
  expires_at: { type: 'datetime', value: ({ client }) => client.expires_at },
  role_ids: { type: 'string-list', value: ({ client }) => roleIdsOf(client) },
};

export const handler = httpHandler(tokenRoutes.list, async ({ query, principal }) => {
  const clients = await identityProvider().listClients(principal.tenantId);
  const inOrder = clients.sort(
    (a, b) => a.created_date.localeCompare(b.created_date) || a.client_id.localeCompare(b.client_id),
  );
  const page = applyListQuery(
    inOrder.map((client, index) => ({ id: index + 1, client })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map(({ client }) => tokenResponse(client)) } };
});
