import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { principalFromContext } from '../auth/authorizer-context';
import type { Permission } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import { config } from '../config';
import { AppError, isAppError } from '../errors/app-error';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../errors/problem';
import { logger } from '../log';
import { recordRequest, withMetricContext } from '../observability/metrics';
import { openSpan, type Span } from '../observability/tracing';
import { parseRequest } from './request';
import { RequestTimeLimit } from './time-limit';
import type { RouteRequest, RouteResult, RouteSpec } from './route';

export type ApiEvent = APIGatewayProxyEventV2 & {
  readonly requestContext: APIGatewayProxyEventV2['requestContext'] & {
    readonly authorizer?: { readonly lambda?: unknown };
  };
};
export type ApiResult = APIGatewayProxyStructuredResultV2;
export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

function traceIdOf(event: ApiEvent): string {
  return event.requestContext.requestId;
}

/** The RFC 7807 answer to an error; anything that is not an AppError becomes 10-500. */
export function problemResult(error: unknown, event: ApiEvent): ApiResult {
  const failure = isAppError(error) ? error : new AppError('10-500', { cause: error });
  const traceId = traceIdOf(event);
  const problem = toProblem(failure, { instance: event.rawPath, traceId, errorBase: config.errorBase });
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE, 'x-trace-id': traceId };
  if (failure.status === 401) headers['www-authenticate'] = 'Bearer realm="data-preparation", error="invalid_token"';
  if (failure.status === 405 && failure.extraDetails?.allow) headers.allow = String(failure.extraDetails.allow);
  // A refusal for want of capacity says when to come back (RFC 9110 §10.2.3), in the body too.
  const retryAfter = failure.extraDetails?.retry_after_seconds;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  return { statusCode: failure.status, headers, body: JSON.stringify(problem) };
}

/** The tenant of a request whose token the authorizer accepted; undefined otherwise. */
function tenantOf(event: ApiEvent): string | undefined {
  const principal = principalFromContext(event.requestContext.authorizer?.lambda);
  return typeof principal === 'string' ? undefined : principal.tenantId;
}

/**
 * Access log line, metrics, trace and error translation for every function behind the API.
 * The trace id is API Gateway's request id: it is in the problem body, the x-trace-id header,
 * the log line and the request's metric line (docs/operations.md). Each request writes its
 * route's metrics (shared/observability/metrics.ts) and, in Lambda, a subsegment annotated
 * with its tenant, operation and code.
 */
export function observed(operationId: string): MiddlewareObj<ApiEvent, ApiResult> {
  const requests = new WeakMap<object, { readonly started: number; readonly span: Span }>();
  const durationOf = (event: ApiEvent) =>
    Math.round((performance.now() - (requests.get(event)?.started ?? performance.now())) * 10) / 10;
  const line = (event: ApiEvent, status: number, durationMs: number) => ({
    traceId: traceIdOf(event),
    operationId,
    method: event.requestContext.http.method,
    path: event.rawPath,
    status,
    durationMs,
  });
  const end = (event: ApiEvent, status: number, code: string | undefined, error?: unknown) => {
    const durationMs = durationOf(event);
    const tenantId = tenantOf(event);
    recordRequest({ operation: operationId, status, latencyMs: durationMs, code, tenantId, traceId: traceIdOf(event) });
    const span = requests.get(event)?.span;
    if (span) {
      span.annotate({ tenant: tenantId, code, status });
      if (status >= 500) span.fail(error);
      span.close();
    }
    return durationMs;
  };
  return {
    before: (request) => {
      requests.set(request.event, {
        started: performance.now(),
        span: openSpan(operationId, { route: operationId, trace_id: traceIdOf(request.event) }),
      });
    },
    after: (request) => {
      const status = request.response?.statusCode ?? 200;
      logger.info('request', line(request.event, status, end(request.event, status, undefined)));
    },
    onError: (request) => {
      const error = request.error;
      request.response = problemResult(error, request.event);
      const status = request.response.statusCode ?? 500;
      // problemResult answers 10-500 for anything that is not an AppError.
      const code = isAppError(error) ? error.code : '10-500';
      const durationMs = end(request.event, status, code, error);
      if (status >= 500) {
        logger.error('request failed', { ...line(request.event, status, durationMs), code, error: error as Error });
      } else {
        logger.info('request refused', { ...line(request.event, status, durationMs), code });
      }
    },
  };
}

/** The caller of a request, refused as 10-401 or 10-403 unless its token carries `permission`. */
export function authorize(event: ApiEvent, permission: Permission): Principal {
  const outcome = principalFromContext(event.requestContext.authorizer?.lambda);
  if (outcome === 'verification_unavailable')
    throw new AppError('10-500', { cause: new Error('token verification unavailable') });
  if (typeof outcome === 'string') throw new AppError('10-401', { extraDetails: { reason: outcome } });
  if (!outcome.permissions.includes(permission))
    throw new AppError('10-403', { extraDetails: { required_permission: permission } });
  return outcome;
}

function respond<R extends RouteSpec>(route: R, result: RouteResult<R>, event: ApiEvent): ApiResult {
  const statusCode = result.status ?? route.response.status;
  const headers = { 'x-trace-id': traceIdOf(event), ...result.headers };
  if (!route.response.body || statusCode === 204) return { statusCode, headers };
  // The response schema is an allow-list: fields it does not name never leave the service.
  const body = route.response.body.parse(result.body);
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A route's Lambda handler, carrying the route it serves so the route table can be checked against its modules. */
export type RouteHandler<R extends RouteSpec> = ApiHandler & { readonly route: R };

/**
 * The Lambda handler of one route: authorization by the route's permission, validation by
 * its schemas, the implementation, then the response through the response schema.
 */
export function httpHandler<R extends RouteSpec>(
  route: R,
  implementation: (request: RouteRequest<R>) => Promise<RouteResult<R>>,
): RouteHandler<R> {
  return routeHandler(route, async (request, event) => respond(route, await implementation(request), event));
}

/**
 * The Lambda handler of a route whose answer is text of `contentType` (a Mermaid picture), not
 * JSON: the same authorization, validation, time limit, access log and problem answers as
 * httpHandler; the implementation answers the text.
 */
export function textHandler<R extends RouteSpec>(
  route: R,
  contentType: string,
  implementation: (request: RouteRequest<R>) => Promise<string>,
): RouteHandler<R> {
  return routeHandler(route, async (request, event) => ({
    statusCode: route.response.status,
    headers: { 'content-type': contentType, 'x-trace-id': traceIdOf(event) },
    body: await implementation(request),
  }));
}

/** What httpHandler and textHandler share: the request checked and bounded in time, then answered by `answer`. */
function routeHandler<R extends RouteSpec>(
  route: R,
  answer: (request: RouteRequest<R>, event: ApiEvent) => Promise<ApiResult>,
): RouteHandler<R> {
  // The time limit is the request's own (RequestTimeLimit), not middy's.
  const handler = middy<ApiEvent, ApiResult>({ timeoutEarlyInMillis: 0 })
    .use(observed(route.operationId))
    // The lines written while it is served (an engine slot's, a connector call's) name its tenant and trace id.
    .handler((event, context) =>
      withMetricContext({ tenant_id: tenantOf(event), trace_id: traceIdOf(event) }, () => serve(event, context)),
    );
  async function serve(event: ApiEvent, context: Context): Promise<ApiResult> {
    const limit = new RequestTimeLimit(deadlineOf(context));
    const principal = route.permission === null ? undefined : authorize(event, route.permission);
    const parsed = parseRequest(route, event);
    const request = {
      ...parsed,
      principal,
      traceId: traceIdOf(event),
      signal: limit.signal,
      deadline: limit.deadline,
      waitOn: limit.waitOn,
    } as RouteRequest<R>;
    return limit.within(answer(request, event));
  }
  return Object.assign(handler, { route });
}

/** How long before the function's end the request's time limit answers: the answer must still be sent. */
const ANSWER_MARGIN_MS = 5;

/** When the request's time is up (Date.now() time); never, where the context has no remaining time (tests). */
function deadlineOf(context: Context): number {
  if (typeof context.getRemainingTimeInMillis !== 'function') return Infinity;
  return Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
}
