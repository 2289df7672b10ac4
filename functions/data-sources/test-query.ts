import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { connectionStore } from '../../shared/connections/store';
import { assertConnectionFits, checkRdbmsQuery } from '../../shared/data-sources/definition';
import { observeConnector } from '../../shared/connectors/observed';
import { httpHandler } from '../../shared/http/handler';
import { openConnectionSecret } from '../../shared/connections/secret';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.testQuery, async ({ params, body, principal, waitOn }) => {
  const connection = await connectionStore.get(principal.tenantId, params.connection_id);
  assertConnectionFits('rdbms', connection);
  checkRdbmsQuery(connection, body.query, body.warehouse);
  // Loaded only when called: snowflake-sdk stays out of the cold start of other routes.
  const [{ warehouseTarget }, { testWarehouseQuery }] = await Promise.all([
    import('../../shared/connectors/warehouse/client'),
    import('../../shared/connectors/warehouse/query'),
  ]);
  const { data } = connection;
  const secret = await openConnectionSecret(principal.tenantId, connection);
  waitOn(externalTimeLimitError(data.type));
  await observeConnector(data.type, 'check', () =>
    testWarehouseQuery(
      warehouseTarget({ type: data.type, auth: data.auth, settings: data.settings, secret }, body.warehouse),
      body.query,
    ),
  );
  return { body: { valid: true as const } };
});
