import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { connectionStore } from '../../shared/connections/store';
import { assertTablesView, getTable } from '../../shared/connectors/tables';
import { httpHandler } from '../../shared/http/handler';
import { openConnectionSecret } from '../../shared/connections/secret';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.getTable, async ({ params, query, principal, waitOn }) => {
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  const { data } = current;
  // Decided before the secret is opened: only the types of TABLE_CONNECTION_TYPES have tables.
  await assertTablesView(principal.tenantId, data.type, current.id);
  const secret = await openConnectionSecret(principal.tenantId, current);
  waitOn(externalTimeLimitError(data.type));
  const table = await getTable(
    { type: data.type, auth: data.auth, secret, settings: data.settings },
    {
      name: params.table_name,
      database: query.database,
      schema: query.schema,
    },
  );
  return { body: table };
});
