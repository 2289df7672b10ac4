import middy from '@middy/core';
import { API_BASE_PATH } from '../../shared/config';
import { notFound } from '../../shared/errors/app-error';
import { methodNotAllowed } from '../../shared/http/form-refusals';
import { observed, type ApiEvent, type ApiResult } from '../../shared/http/handler';
import { pathPattern } from '../../shared/http/route';
import { routes } from '../routes';

const patterns = routes.map((route) => ({
  method: route.method,
  pattern: pathPattern(`${API_BASE_PATH}${route.path}`),
}));

export const handler = middy<ApiEvent, ApiResult>()
  .use(observed('fallback'))
  .handler(async (event) => {
    const path = event.rawPath;
    const allowed = patterns.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method);
    if (allowed.length > 0) {
      throw methodNotAllowed(event.requestContext.http.method, allowed);
    }
    throw notFound('route', path);
  });
