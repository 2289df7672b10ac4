import { bundleStore, publishedVersion } from '../../shared/apps/bundles';
import { sessionResponse, startSession } from '../../shared/apps/sessions';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { sessionRoutes } from './session-routes';

export const handler = httpHandler(sessionRoutes.startSession, async ({ params, body, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  const { session, sdkToken, expiresIn } = await startSession(principal, params.bundle_id, body.return_to);
  const { entry } = publishedVersion(await bundleStore.get(principal.tenantId, params.bundle_id)).manifest;
  // Relative to the API's base path; the token rides in the fragment, which no browser sends to a server.
  const page = `apps/installs/${params.bundle_id}/sessions/${encodeURIComponent(session.session_id)}/assets/${entry}`;
  return {
    status: 201,
    body: {
      ...sessionResponse(session),
      sdk_token: sdkToken,
      token_type: 'Bearer' as const,
      expires_in: expiresIn,
      open_url: `${page}#sdk_token=${encodeURIComponent(sdkToken)}`,
    },
    headers: { 'cache-control': 'no-store' },
  };
});
