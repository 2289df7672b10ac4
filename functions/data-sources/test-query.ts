import { connectionStore } from '../../shared/connections/store';
import { assertConnectionFits, checkRdbmsQuery } from '../../shared/data-sources/definition';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { dataSourceRoutes } from './routes';

export const handler = httpHandler(dataSourceRoutes.testQuery, async ({ params, body, principal }) => {
  const connection = await connectionStore.get(principal.tenantId, params.connection_id);
  assertConnectionFits('rdbms', connection);
  checkRdbmsQuery(connection, body.query, body.warehouse);
  // Like every connector not built yet (docs/decisions.md): never a success it did not check.
  throw new AppError('10-1501', { params: ['connector.warehouse'] });
});
