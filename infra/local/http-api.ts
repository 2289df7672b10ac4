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
import type { ApiEvent, ApiHandler, ApiResult } from '../../shared/http/handler';
import { pathPattern, type RouteSpec } from '../../shared/http/route';

/** API Gateway's payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|xml|javascript))/i;

type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<{ isAuthorized: boolean; context?: unknown }>;

const modules = new Map<string, Promise<Record<string, unknown>>>();
function loadHandler<T>(name: string): Promise<T> {
  let module = modules.get(name);
  if (!module) {
    module = import(new URL(`../../functions/${name}.ts`, import.meta.url).href) as Promise<Record<string, unknown>>;
    modules.set(name, module);
  }
  return module.then((loaded) => loaded.handler as T);
}

const compiled = routes.map((route) => ({ route, pattern: pathPattern(`${API_BASE_PATH}${route.path}`) }));

function match(method: string, path: string): { route: RouteSpec; params: Record<string, string> } | undefined {
  for (const { route, pattern } of compiled) {
    if (route.method !== method) continue;
    const found = pattern.exec(path);
    if (!found) continue;
    const params = Object.fromEntries(Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]));
    return { route, params };
  }
  return undefined;
}

function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + 30_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD_BYTES) return 'too large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, result: ApiResult): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const requestId = randomUUID();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;

  const matched = match(method, url.pathname);
  const routeKey = matched ? `${method} ${API_BASE_PATH}${matched.route.path}` : '$default';
  const now = Date.now();
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: headers.host ?? 'localhost',
    domainPrefix: 'local',
    http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
    requestId,
    routeKey,
    stage: '$default',
    time: new Date(now).toISOString(),
    timeEpoch: now,
  };

  const raw = await readBody(req);
  if (raw === 'too large') {
    return send(res, { statusCode: 413, headers: { 'content-type': 'application/json' }, body: '{"message":"Request Entity Too Large"}' });
  }
  const base = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
  };

  let authorizer: { lambda: unknown } | undefined;
  if (matched && matched.route.permission !== null) {
    const authorize = await loadHandler<Authorizer>(AUTHORIZER_HANDLER);
    const verdict = await authorize({
      ...base,
      type: 'REQUEST',
      routeArn: `arn:aws:execute-api:us-east-1:000000000000:local/$default/${method}${url.pathname}`,
      identitySource: [],
      pathParameters: matched.params,
      requestContext,
    } as unknown as APIGatewayRequestAuthorizerEventV2);
    if (!verdict.isAuthorized) return send(res, { statusCode: 403, headers: { 'content-type': 'application/json' }, body: '{"message":"Forbidden"}' });
    authorizer = { lambda: verdict.context ?? {} };
  }

  const textual = TEXT_TYPES.test(headers['content-type'] ?? 'text/plain');
  const event = {
    ...base,
    ...(matched && Object.keys(matched.params).length > 0 ? { pathParameters: matched.params } : {}),
    requestContext: { ...requestContext, ...(authorizer ? { authorizer } : {}) },
    ...(raw.length > 0 ? { body: textual ? raw.toString('utf8') : raw.toString('base64'), isBase64Encoded: !textual } : { isBase64Encoded: false }),
  } as unknown as ApiEvent;

  const handlerName = matched?.route.handler ?? FALLBACK_HANDLER;
  const handler = await loadHandler<ApiHandler>(handlerName);
  try {
    send(res, await handler(event, lambdaContext(handlerName.replace('/', '-'), requestId)));
  } catch {
    send(res, { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"message":"Internal Server Error"}' });
  }
}

export interface LocalHttpApi {
  readonly url: string;
  close(): Promise<void>;
}

export async function startLocalHttpApi(port = 0): Promise<LocalHttpApi> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"message":"Internal Server Error"}' });
    });
  });
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
