import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { connectionStore } from '../../shared/connections/store';
import { assertTablesView, listTables } from '../../shared/connectors/tables';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { TABLE_LIST_FIELDS } from '../../shared/model/list-fields';
import type { TableDetails } from '../../shared/model/table';
import { openConnectionSecret } from '../../shared/connections/secret';
import { connectionRoutes } from './routes';

/** A listed table; its id is its place in the system's listing, so ties sort as the system listed them. */
interface Listed {
  readonly id: number;
  readonly table: TableDetails;
}

/** What a table listing can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof TABLE_LIST_FIELDS> = {
  name: { type: 'string', value: (listed) => listed.table.name },
  database: { type: 'string', value: (listed) => listed.table.database },
  schema: { type: 'string', value: (listed) => listed.table.schema },
  type: { type: 'string', value: (listed) => listed.table.type },
};

export const handler = httpHandler(connectionRoutes.listTables, async ({ params, query, principal, waitOn }) => {
  // A malformed filter or sort is refused before the system is called: compiling them over no records checks them.
  applyListQuery([], query, FIELDS);
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  const { data } = current;
  // Decided before the secret is opened: only the types of TABLE_CONNECTION_TYPES have tables.
  await assertTablesView(principal.tenantId, data.type, current.id);
  const secret = await openConnectionSecret(principal.tenantId, current);
  waitOn(externalTimeLimitError(data.type));
  const tables = await listTables({ type: data.type, auth: data.auth, secret, settings: data.settings });
  const page = applyListQuery(
    tables.map((table, index) => ({ id: index + 1, table })),
    query,
    FIELDS,
  );
  return { body: { ...page, items: page.items.map((listed) => listed.table) } };
});
