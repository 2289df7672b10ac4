import { assertOwnApp } from '../../shared/apps/sdk-context';
import { getSession, sessionResponse } from '../../shared/apps/sessions';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { sessionRoutes } from './session-routes';

export const handler = httpHandler(sessionRoutes.getSession, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'apps');
  assertOwnApp(principal, params.bundle_id);
  return { body: sessionResponse(await getSession(principal.tenantId, params.bundle_id, params.session_id)) };
});
