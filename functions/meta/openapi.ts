import { buildOpenApiDocument } from '../../shared/http/openapi';
import { httpHandler } from '../../shared/http/handler';
import { API_INFO, API_TAGS, routes } from '../routes';
import { metaRoutes } from './routes';

let document: Record<string, unknown> | undefined;

export const handler = httpHandler(metaRoutes.openapi, async () => {
  document ??= buildOpenApiDocument(routes, API_INFO, API_TAGS);
  return { body: document, headers: { 'cache-control': 'public, max-age=300' } };
});
