/**
 * Handlers of public routes whose answer is fixed content other than JSON: the API reference
 * page and its script. They keep what httpHandler gives every route (the access log, problem
 * answers, and refusal of what the route does not declare, such as a query string), and answer
 * the content with its media type, gzip-compressed when the client accepts it. The route
 * declares no response body schema: its body is not JSON.
 */
import { gzipSync } from 'node:zlib';
import middy from '@middy/core';
import { observed, type ApiEvent, type ApiResult, type RouteHandler } from '../../shared/http/handler';
import { parseRequest } from '../../shared/http/request';
import type { RouteSpec } from '../../shared/http/route';

export interface StaticContent {
  /** Media type with charset, e.g. "text/html; charset=utf-8". */
  readonly contentType: string;
  readonly text: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Whether an Accept-Encoding header admits gzip (by name or "*", with a quality above 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (quality === undefined || Number(quality.slice(2)) > 0);
  });
}

/** The handler of `route`, answering what `load` makes (once per function instance). */
export function staticContentHandler<R extends RouteSpec>(
  route: R,
  load: () => Promise<StaticContent>,
): RouteHandler<R> {
  let loaded: Promise<{ readonly content: StaticContent; readonly gzipped: string }> | undefined;
  const handler = middy<ApiEvent, ApiResult>()
    .use(observed(route.operationId))
    .handler(async (event) => {
      parseRequest(route, event);
      loaded ??= load().then((content) => ({ content, gzipped: gzipSync(content.text).toString('base64') }));
      const { content, gzipped } = await loaded;
      const headers = {
        'content-type': content.contentType,
        'x-trace-id': event.requestContext.requestId,
        vary: 'accept-encoding',
        ...content.headers,
      };
      if (!acceptsGzip(event.headers['accept-encoding']))
        return { statusCode: route.response.status, headers, body: content.text };
      return {
        statusCode: route.response.status,
        headers: { ...headers, 'content-encoding': 'gzip' },
        body: gzipped,
        isBase64Encoded: true,
      };
    });
  return Object.assign(handler, { route });
}
