import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { configurationOf } from '../../shared/connectors/configuration';
import { testResult } from '../../shared/connections/response';
import { testConnection } from '../../shared/connectors/testing';
import { validateConfiguration } from '../../shared/connectors/validation';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.test, async ({ body, principal, waitOn }) => {
  const configuration = configurationOf(body);
  const derived = validateConfiguration(configuration);
  waitOn(externalTimeLimitError(configuration.type));
  await testConnection(principal.tenantId, { ...configuration, secret: configuration.secret ?? '' });
  return {
    body: testResult(configuration, derived, {
      read: body.read ?? true,
      write: body.write ?? body.type === 'pricing_dim',
    }),
  };
});
