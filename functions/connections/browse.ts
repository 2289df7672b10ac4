import { connectionStore, secretContext } from '../../shared/connections/store';
import { browseObjectStore } from '../../shared/connectors/object-store/browse';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { open } from '../../shared/secrets/envelope';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.browse, async ({ params, body, principal }) => {
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  const { data } = current;
  // Decided before the secret is opened: only bucket stores can be browsed, and only S3 is built.
  if (data.type === 'cloud_store') throw new AppError('10-1501', { params: ['connector.cloud_store'] });
  if (data.type !== 'object_store') throw new AppError('10-1043', { params: [data.type] });

  const secret = await open(data.secret, secretContext(principal.tenantId, current.id));
  const listing = await browseObjectStore({
    endpoint: data.auth.endpoint ?? '',
    accessKeyId: data.auth.access_key_id ?? '',
    secretAccessKey: secret,
    pathRestriction: data.settings.path_restriction,
    path: body.path,
    continuationToken: body.continuation_token,
    maxItems: body.max_items,
  });
  return { body: listing };
});
