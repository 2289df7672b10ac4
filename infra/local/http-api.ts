/**
 * A local stand-in for API Gateway (HTTP API, payload format 2.0): it matches requests
 * against the route table, runs the Lambda authorizer for protected routes, builds the same
 * event API Gateway would, and invokes the same handler module CDK deploys. Unmatched
 * requests go to the fallback handler, like API Gateway's $default route.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../functions/routes';
import { API_BASE_PATH } from '../../shared/config';
import { validationError } from '../../shared/errors/app-error';
import { problemResult, type ApiEvent, type ApiHandler, type ApiResult } from '../../shared/http/handler';
import { handlerFunctionName, handlerModulePath, handlerRef } from '../../shared/http/handler-ref';
import type { RouteSpec } from '../../shared/http/route';
import { decodeStrict, routeMatcher } from './route-match';

/** API Gateway's payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|xml|javascript))/i;

export type Authorizer = (
  event: APIGatewayRequestAuthorizerEventV2,
) => Promise<{ isAuthorized: boolean; context?: unknown }>;

const modules = new Map<string, Promise<Record<string, unknown>>>();
function loadHandler<T>(name: string): Promise<T> {
  const path = handlerModulePath(name);
  let module = modules.get(path);
  if (!module) {
    module = import(new URL(`../../${path}`, import.meta.url).href) as Promise<Record<string, unknown>>;
    modules.set(path, module);
  }
  return module.then((loaded) => loaded[handlerRef(name).exportName] as T);
}

const match = routeMatcher(routes.map((spec) => ({ method: spec.method, path: `${API_BASE_PATH}${spec.path}`, spec })));

/** What API Gateway's percent-decoding cannot read: refused before any function runs. */
const NOT_PERCENT_ENCODED = 'must be valid percent-encoded UTF-8';

/**
 * The query string decoded as API Gateway passes it on (repeated names joined by commas),
 * or the names of the parameters whose percent-encoding is not valid UTF-8.
 */
function parseQuery(rawQuery: string): { readonly query: Record<string, string>; readonly invalid: readonly string[] } {
  // No prototype: "__proto__" or "constructor" are names like any other.
  const query = Object.create(null) as Record<string, string>;
  const invalid: string[] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawName = separator === -1 ? pair : pair.slice(0, separator);
    const rawValue = separator === -1 ? '' : pair.slice(separator + 1);
    const name = decodeStrict(rawName.replace(/\+/g, ' '));
    const value = decodeStrict(rawValue.replace(/\+/g, ' '));
    // A name that cannot be decoded is not quoted back: the refusal names the query string.
    if (name === undefined) invalid.push('query');
    else if (value === undefined) invalid.push(name);
    else query[name] = Object.hasOwn(query, name) ? `${query[name]},${value}` : value;
  }
  return { query, invalid };
}

/** The Lambda context of one invocation; its methods are the class's, not closures made per request. */
export class LocalContext implements Context {
  readonly callbackWaitsForEmptyEventLoop = false;
  readonly functionVersion = '$LATEST';
  readonly memoryLimitInMB = '1024';
  readonly logStreamName = 'local';
  readonly invokedFunctionArn: string;
  readonly logGroupName: string;
  private readonly deadline: number;

  constructor(
    readonly functionName: string,
    readonly awsRequestId: string,
    timeLimitMs: number,
  ) {
    this.deadline = Date.now() + timeLimitMs;
    this.invokedFunctionArn = `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`;
    this.logGroupName = `/aws/lambda/${functionName}`;
  }

  getRemainingTimeInMillis(): number {
    return Math.max(0, this.deadline - Date.now());
  }
  done(): void {}
  fail(): void {}
  succeed(): void {}
}

const NO_BODY = Buffer.alloc(0);

/** Whether the request has a body to read: one with neither Content-Length (or 0) nor Transfer-Encoding has none (RFC 9112 §6.3). */
function announcesBody({ headers }: IncomingMessage): boolean {
  return (
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0')
  );
}

/**
 * The request's body, or 'too large' past API Gateway's limit. An over-limit body is still read
 * to its end, and dropped: leaving its rest unread left the kept-alive connection out of step,
 * so the next request on it was never answered. Node's requestTimeout bounds a body that never ends.
 */
async function readBody(req: IncomingMessage): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_PAYLOAD_BYTES ? 'too large' : Buffer.concat(chunks);
}

function send(res: ServerResponse, result: ApiResult): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  const body =
    result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

/** What API Gateway makes of a request before any function runs: its route, parameters and the events' common part. */
export interface ApiRequest {
  readonly route: RouteSpec | undefined;
  readonly params: Record<string, string>;
  /** Parameters (path or query) whose percent-encoding API Gateway cannot decode. */
  readonly undecodable: readonly string[];
  readonly base: Record<string, unknown>;
  readonly requestContext: Record<string, unknown>;
}

/** A request as API Gateway (HTTP API, payload format 2.0) reads it: matched against the route table. */
export function apiRequestOf(
  method: string,
  target: string,
  headers: Readonly<Record<string, string>>,
  sourceIp = '127.0.0.1',
): ApiRequest {
  const url = new URL(target, 'http://localhost');
  const requestId = randomUUID();
  const rawQueryString = url.search.replace(/^\?/, '');
  const { query, invalid: invalidQuery } = parseQuery(rawQueryString);
  const found = match(method, url.pathname);
  const route: RouteSpec | undefined = found?.route.spec;
  const routeKey = route ? `${method} ${API_BASE_PATH}${route.path}` : '$default';
  const now = Date.now();
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: headers.host ?? 'localhost',
    domainPrefix: 'local',
    http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent'] ?? '' },
    requestId,
    routeKey,
    stage: '$default',
    time: new Date(now).toISOString(),
    timeEpoch: now,
  };
  const base = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
  };
  return {
    route,
    params: found?.kind === 'matched' ? found.params : {},
    undecodable: [...(found?.kind === 'badEncoding' ? found.parameters : []), ...invalidQuery],
    base,
    requestContext,
  };
}

/** The event of the Lambda authorizer for a request. */
export function authorizerEventOf(request: ApiRequest): APIGatewayRequestAuthorizerEventV2 {
  const { method, path } = request.requestContext.http as { method: string; path: string };
  return {
    ...request.base,
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:us-east-1:000000000000:local/$default/${method}${path}`,
    identitySource: [],
    pathParameters: request.params,
    requestContext: request.requestContext,
  } as unknown as APIGatewayRequestAuthorizerEventV2;
}

/** The event of the route's function (or the fallback's), with the authorizer's context when one ran. */
export function handlerEventOf(
  request: ApiRequest,
  raw: Buffer,
  authorizer: { lambda: unknown } | undefined,
): ApiEvent {
  const textual = TEXT_TYPES.test((request.base.headers as Record<string, string>)['content-type'] ?? 'text/plain');
  return {
    ...request.base,
    ...(Object.keys(request.params).length > 0 ? { pathParameters: request.params } : {}),
    requestContext: { ...request.requestContext, ...(authorizer ? { authorizer } : {}) },
    ...(raw.length > 0
      ? { body: textual ? raw.toString('utf8') : raw.toString('base64'), isBase64Encoded: !textual }
      : { isBase64Encoded: false }),
  } as unknown as ApiEvent;
}

/** The authorizer's handler and a route's (or the fallback's), loaded once each as a warm function keeps them. */
export const loadAuthorizer = (): Promise<Authorizer> => loadHandler<Authorizer>(AUTHORIZER_HANDLER);
export const loadRouteHandler = (route: RouteSpec | undefined): Promise<ApiHandler> =>
  loadHandler<ApiHandler>(route?.handler ?? FALLBACK_HANDLER);

async function handle(req: IncomingMessage, res: ServerResponse, timeLimitMs: number): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const request = apiRequestOf(method, req.url ?? '/', headers, req.socket.remoteAddress ?? '127.0.0.1');
  const { route } = request;

  // Reading a stream that holds nothing still costs an iterator and several ticks.
  const raw = announcesBody(req) ? await readBody(req) : NO_BODY;
  if (raw === 'too large') {
    return send(res, {
      statusCode: 413,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Request Entity Too Large"}',
    });
  }

  // API Gateway decodes parameters before any function runs; what it cannot decode never
  // reaches one. The twin refuses it with the service's own problem body (docs/decisions.md).
  if (request.undecodable.length > 0) {
    const fields = Object.fromEntries(request.undecodable.map((name) => [name, NOT_PERCENT_ENCODED]));
    return send(
      res,
      problemResult(validationError(fields), {
        ...request.base,
        requestContext: request.requestContext,
      } as unknown as ApiEvent),
    );
  }

  let authorizer: { lambda: unknown } | undefined;
  if (route && route.permission !== null) {
    const verdict = await (await loadAuthorizer())(authorizerEventOf(request));
    if (!verdict.isAuthorized)
      return send(res, {
        statusCode: 403,
        headers: { 'content-type': 'application/json' },
        body: '{"message":"Forbidden"}',
      });
    authorizer = { lambda: verdict.context ?? {} };
  }

  const event = handlerEventOf(request, raw, authorizer);
  const handlerName = route?.handler ?? FALLBACK_HANDLER;
  const handler = await loadRouteHandler(route);
  const requestId = request.requestContext.requestId as string;
  try {
    send(res, await handler(event, new LocalContext(handlerFunctionName(handlerName), requestId, timeLimitMs)));
  } catch {
    send(res, {
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Internal Server Error"}',
    });
  }
}

export interface LocalHttpApi {
  readonly url: string;
  close(): Promise<void>;
}

/** The time limit of an API function: API Gateway's integration time-out, which the functions are given too. */
export const API_TIME_LIMIT_MS = 30_000;

/** How long an idle kept-alive client connection stays open (as a load balancer's idle time-out). */
const KEEP_ALIVE_MS = 65_000;

/** The API on `port` (a free one when 0); `timeLimitMs` is every request's function time limit. */
export async function startLocalHttpApi(port = 0, timeLimitMs = API_TIME_LIMIT_MS): Promise<LocalHttpApi> {
  const server: Server = createServer((req, res) => {
    handle(req, res, timeLimitMs).catch(() => {
      if (!res.headersSent)
        send(res, {
          statusCode: 500,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Internal Server Error"}',
        });
    });
  });
  // Node closes an idle kept-alive connection after 5 s, and fetch (undici) reuses one for up to
  // 1 s less: a client whose event loop lags past that second (a loaded machine) sends on a
  // connection the server is closing and gets "fetch failed". API Gateway keeps idle connections
  // far longer; so does the twin, and the client is the one to close them.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
