import { assertActivityContext } from '../../shared/apps/sdk-context';
import { getSession, recordActivity, sessionResponse } from '../../shared/apps/sessions';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { sessionRoutes } from './session-routes';

export const handler = httpHandler(sessionRoutes.activity, async ({ params, principal }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'apps');
  assertActivityContext(principal, params.bundle_id, params.session_id);
  const session = await getSession(tenantId, params.bundle_id, params.session_id);
  return { body: sessionResponse(await recordActivity(tenantId, session)) };
});
