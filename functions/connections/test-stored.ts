import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { settingsOf } from '../../shared/connectors/configuration';
import { connectionResponse } from '../../shared/connections/response';
import { connectionStore } from '../../shared/connections/store';
import { assertWithin, GCS_BUCKETS, parseBucketLocation, S3_BUCKETS } from '../../shared/connectors/bucket-location';
import { testConnection } from '../../shared/connectors/testing';
import { validateConfiguration } from '../../shared/connectors/validation';
import { validationError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { openConnectionSecret } from '../../shared/connections/secret';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.testStored, async ({ params, body, principal, waitOn }) => {
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  const { data } = current;
  if (body.type !== data.type)
    throw validationError({ type: `must be ${data.type}, the type of connection ${current.id}` });

  // Overrides replace stored settings for this one test; a path restriction may only narrow.
  const overrides = Object.fromEntries(
    Object.entries(settingsOf(data.type, body)).filter(([, value]) => value !== null),
  );
  const settings = { ...data.settings, ...overrides };
  const rules = data.type === 'object_store' ? S3_BUCKETS : GCS_BUCKETS;
  if (overrides.path_restriction && data.settings.path_restriction) {
    assertWithin(
      parseBucketLocation(overrides.path_restriction, rules),
      parseBucketLocation(data.settings.path_restriction, rules),
      rules,
    );
  }

  const secret = await openConnectionSecret(principal.tenantId, current);
  const configuration = { type: data.type, auth: data.auth, secret, settings };
  validateConfiguration(configuration);
  waitOn(externalTimeLimitError(data.type));
  await testConnection(principal.tenantId, configuration);
  return { body: connectionResponse(current) };
});
