/**
 * GET .../sessions/{session_id}/assets/{asset_name}: a file of the version an app session
 * opened, for the browser. No bearer token (a page loads its scripts without one): the
 * session id, 128 random bits naming its tenant, is the capability. Every file goes out under
 * a content security policy that lets the app load its own files and call only this API.
 */
import middy from '@middy/core';
import { readAsset } from '../../shared/apps/bundle-files';
import { bundleStore, versionOf } from '../../shared/apps/bundles';
import { getSession, tenantOfSession } from '../../shared/apps/sessions';
import { AppError } from '../../shared/errors/app-error';
import { requireFeature } from '../../shared/features/store';
import { observed, type ApiEvent, type ApiResult, type RouteHandler } from '../../shared/http/handler';
import { parseRequest } from '../../shared/http/request';
import { AssetName } from '../../shared/model/app-bundle';
import { sessionRoutes } from './session-routes';

/** No inline script or style, nothing from elsewhere; `connect-src 'self'`: the API is the page's own origin. */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const route = sessionRoutes.asset;

export const handler: RouteHandler<typeof route> = Object.assign(
  middy<ApiEvent, ApiResult>()
    .use(observed(route.operationId))
    .handler(async (event) => {
      const { params } = parseRequest(route, event) as {
        params: { bundle_id: number; session_id: string; asset_name: string };
      };
      const tenantId = tenantOfSession(params.session_id);
      if (tenantId === undefined) throw new AppError('80-8031', { params: [params.session_id] });
      await requireFeature(tenantId, 'apps');
      const session = await getSession(tenantId, params.bundle_id, params.session_id);
      const version = versionOf(await bundleStore.get(tenantId, params.bundle_id), session.version_number);
      const file = AssetName.safeParse(params.asset_name).success
        ? version.files.find((candidate) => candidate.path === params.asset_name)
        : undefined;
      if (!file) throw new AppError('80-8033', { params: [params.asset_name] });
      const bytes = await readAsset(tenantId, params.bundle_id, session.version_number, file.path);
      return {
        statusCode: route.response.status,
        headers: {
          'content-type': file.content_type,
          'x-trace-id': event.requestContext.requestId,
          'content-security-policy': APP_CONTENT_SECURITY_POLICY,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
          'cross-origin-resource-policy': 'same-origin',
        },
        body: Buffer.from(bytes).toString('base64'),
        isBase64Encoded: true,
      };
    }),
  { route },
);
