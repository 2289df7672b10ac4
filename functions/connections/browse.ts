import { externalTimeLimitError } from '../../shared/connectors/time-limit';
import { connectionStore } from '../../shared/connections/store';
import { browseObjectStore } from '../../shared/connectors/object-store/browse';
import type * as z from 'zod';
import type { ConnectionData } from '../../shared/connections/store';
import { observeConnector } from '../../shared/connectors/observed';
import type { BrowseRequest, BrowseResult } from '../../shared/model/browse';
import { unsupportedSourceType } from '../../shared/data-sources/definition';
import { httpHandler } from '../../shared/http/handler';
import { openConnectionSecret } from '../../shared/connections/secret';
import { connectionRoutes } from './routes';

export const handler = httpHandler(connectionRoutes.browse, async ({ params, body, principal, waitOn }) => {
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  const { data } = current;
  // Decided before the secret is opened: only bucket stores can be browsed.
  if (data.type !== 'object_store' && data.type !== 'cloud_store') throw unsupportedSourceType(data.type);

  const secret = await openConnectionSecret(principal.tenantId, current);
  waitOn(externalTimeLimitError(data.type));
  const type = data.type;
  return { body: await observeConnector(type, 'browse', () => browse(type, data, secret, body)) };
});

/** One page of a bucket store's listing, through its connector. */
async function browse(
  type: 'object_store' | 'cloud_store',
  data: ConnectionData,
  secret: string,
  body: z.output<typeof BrowseRequest>,
): Promise<BrowseResult> {
  if (type === 'cloud_store') {
    // Loaded only when called: the Google SDK stays out of the cold start of S3 browsing.
    const [{ browseCloudStore }, { googleCredentialsOf }] = await Promise.all([
      import('../../shared/connectors/cloud-store/browse'),
      import('../../shared/connectors/cloud/token'),
    ]);
    return browseCloudStore({
      credentials: googleCredentialsOf(data.auth, secret),
      pathRestriction: data.settings.path_restriction,
      path: body.path,
      continuationToken: body.continuation_token,
      maxItems: body.max_items,
    });
  }
  return browseObjectStore({
    endpoint: data.auth.endpoint ?? '',
    accessKeyId: data.auth.access_key_id ?? '',
    secretAccessKey: secret,
    pathRestriction: data.settings.path_restriction,
    path: body.path,
    continuationToken: body.continuation_token,
    maxItems: body.max_items,
  });
}
