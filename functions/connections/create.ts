import { configurationOf } from '../../shared/connectors/configuration';
import { connectionResponse } from '../../shared/connections/response';
import { connectionStore, secretContext } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import { validateConfiguration } from '../../shared/connectors/validation';
import { API_BASE_PATH } from '../../shared/config';
import { validationError } from '../../shared/errors/app-error';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { seal } from '../../shared/secrets/envelope';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.create, async ({ body, principal, idempotencyKey }) => {
  // A pricing DIM connection is a target: it is created with write permission (spec 2.3).
  if (body.type === 'pricing_dim' && body.write === false) {
    throw validationError({ write: 'must be true: pricing_dim connections are created with write permission' });
  }
  const configuration = configurationOf(body);
  const derived = validateConfiguration(configuration);
  const { tenantId } = principal;
  const { entity, replayed } = await connectionStore.create(
    tenantId,
    actorOf(principal),
    async (id) => ({
      name: body.name,
      description: body.description ?? null,
      tags: body.tags ?? null,
      type: body.type,
      read: body.read ?? true,
      write: body.write ?? body.type === 'pricing_dim',
      auth: configuration.auth,
      secret: await seal(configuration.secret ?? '', secretContext(tenantId, id)),
      settings: configuration.settings,
      type_mapping: null,
      type_mapping_name: null,
      derived,
    }),
    idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } },
  );
  return {
    status: 201,
    body: connectionResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/connections/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
