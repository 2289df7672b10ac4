/**
 * `npm run bench -- cost`: what each route costs in Lambda terms. A twin in a child process
 * (bench/cost-twin-process.ts) holds the stores and the contract corpus's fixtures; this process
 * invokes each route's handler directly, with the API Gateway v2 event the twin's HTTP API builds
 * (infra/local/http-api.ts) and the real SDK clients pointed at the twin's stores, as Lambda would.
 * Counted per invocation (bench/cost-meter.ts): SDK calls by service and operation and DynamoDB
 * capacity units; timed: the handler's CPU time. The authorizer, a function of its own, is
 * measured apart. Cold starts are bench/cost-cold.ts's.
 */
import { routeTable, type OperationId } from '../functions/routes';
import {
  apiRequestOf,
  authorizerEventOf,
  handlerEventOf,
  loadAuthorizer,
  loadRouteHandler,
  LocalContext,
} from '../infra/local/http-api';
import { API_BASE_PATH } from '../shared/config';
import type { ApiEvent } from '../shared/http/handler';
import { handlerFunctionName } from '../shared/http/handler-ref';
import { logger } from '../shared/log';
import { installMeter, type CallTally } from './cost-meter';
import type { CostCase, CostParentMessage, CostTwinReady } from './cost-protocol';
import { forkTwin } from './twin-fork';
import { median } from './import-throughput';

/** What one route's valid request cost, warm. */
export interface RouteCost {
  readonly operationId: OperationId | 'authorizer';
  readonly handler: string;
  readonly method: string;
  readonly path: string;
  /** The status of the measured invocation. */
  readonly status: number;
  /** SDK calls and capacity of one warm invocation (a GET's second, a write's first: the one that wrote). */
  readonly tally: CallTally;
  /** Median CPU time of the invocations that answered that status. */
  readonly cpuMs: number;
  readonly samples: number;
  /** Built as API Gateway builds it: the cold start replays it in a fresh process. */
  readonly event: ApiEvent;
}

export interface WarmSettings {
  /** Invocations of a GET after the first (which may fill per-process caches, and is not counted). */
  readonly readRuns: number;
  /** Invocations of any other method, the first included (later ones may be refused: a conflict, a 404). */
  readonly writeRuns: number;
}

interface Invocation {
  readonly status: number;
  readonly cpuMs: number;
  readonly tally: CallTally;
  readonly event: ApiEvent;
  readonly authorizer?: { readonly cpuMs: number; readonly tally: CallTally; readonly event: ApiEvent };
}

type Meter = ReturnType<typeof installMeter>;

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

async function invoke(item: CostCase, token: string, meter: Meter): Promise<Invocation> {
  const route = routeTable[item.operationId];
  const body = Buffer.from(item.body ?? '');
  const headers: Record<string, string> = {
    host: 'localhost',
    'user-agent': 'cost-bench',
    ...(route.permission === null ? {} : { authorization: `Bearer ${token}` }),
    ...(item.contentType === undefined ? {} : { 'content-type': item.contentType }),
    ...(body.length > 0 ? { 'content-length': String(body.length) } : {}),
    ...item.headers,
  };
  const request = apiRequestOf(item.method, `${API_BASE_PATH}${item.path}`, headers);
  let authorizer: Invocation['authorizer'];
  let context: { lambda: unknown } | undefined;
  if (route.permission !== null) {
    const authorize = await loadAuthorizer();
    const event = authorizerEventOf(request);
    meter.take();
    const cpu = process.cpuUsage();
    const verdict = await authorize(event);
    authorizer = { cpuMs: cpuMsSince(cpu), tally: meter.take(), event: event as unknown as ApiEvent };
    if (!verdict.isAuthorized) throw new Error(`${item.operationId}: the authorizer refused the bench's token`);
    context = { lambda: verdict.context ?? {} };
  }
  const handler = await loadRouteHandler(route);
  const event = handlerEventOf(request, body, context);
  const requestId = String(request.requestContext.requestId);
  meter.take();
  const cpu = process.cpuUsage();
  const result = await handler(event, new LocalContext(handlerFunctionName(route.handler), requestId, 30_000));
  return { status: result.statusCode ?? 200, cpuMs: cpuMsSince(cpu), tally: meter.take(), event, authorizer };
}

/** One case's invocations reduced to its cost. */
function costOf(item: CostCase, invocations: readonly Invocation[]): RouteCost {
  const route = routeTable[item.operationId];
  // A GET's first invocation may fill this process's caches (a warm function's are full); a write's first is the one that wrote.
  const measured = (route.method === 'GET' ? invocations[1] : undefined) ?? invocations[0]!;
  const alike = invocations.filter((invocation) => invocation.status === measured.status);
  const timed = route.method === 'GET' && alike.length > 1 ? alike.slice(1) : alike;
  return {
    operationId: item.operationId,
    handler: route.handler,
    method: route.method,
    path: route.path,
    status: measured.status,
    tally: measured.tally,
    cpuMs: median(timed.map((invocation) => invocation.cpuMs)),
    samples: timed.length,
    event: invocations[0]!.event,
  };
}

/** The authorizer as a route of its own: its warm invocations over every protected case. */
function authorizerCost(invocations: readonly Invocation[]): RouteCost | undefined {
  const runs = invocations.flatMap((invocation) => (invocation.authorizer ? [invocation.authorizer] : []));
  const warm = runs.slice(1);
  const last = warm.at(-1);
  if (!last) return undefined;
  return {
    operationId: 'authorizer',
    handler: 'auth/authorizer',
    method: '–',
    path: '(every protected route; API Gateway may cache its answer)',
    status: 200,
    tally: last.tally,
    cpuMs: median(warm.map((run) => run.cpuMs)),
    samples: warm.length,
    event: last.event,
  };
}

/** Starts the twin process, measures every case of the corpus warm, and closes the twin. */
export async function measureWarmCosts(
  settings: WarmSettings,
  whileTwinRuns: (costs: readonly RouteCost[], environment: Readonly<Record<string, string>>) => Promise<void>,
): Promise<RouteCost[]> {
  const child = forkTwin(new URL('./cost-twin-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const ready = await new Promise<CostTwinReady>((resolve, reject) => {
      child.once('message', (message) => resolve(message as CostTwinReady));
      child.once('exit', (code) =>
        reject(new Error(`the cost twin process exited (code ${code}) before it was ready`)),
      );
    });
    // The handlers of this process reach the twin's stores as the twin's own functions do.
    Object.assign(process.env, ready.environment);
    // The access log line is not written: stdout carries the report (its cost is a JSON line per request).
    logger.setLogLevel('SILENT');
    const meter = installMeter(ready.s3Port);
    const costs: RouteCost[] = [];
    const all: Invocation[] = [];
    for (const item of ready.cases) {
      const route = routeTable[item.operationId];
      const token = route.permission === 'platform:admin' ? ready.platformAdminToken : ready.adminToken;
      const runs = route.method === 'GET' ? settings.readRuns + 1 : settings.writeRuns;
      const invocations: Invocation[] = [];
      for (let run = 0; run < runs; run += 1) invocations.push(await invoke(item, token, meter));
      all.push(...invocations);
      costs.push(costOf(item, invocations));
    }
    const authorizer = authorizerCost(all);
    if (authorizer) costs.push(authorizer);
    await whileTwinRuns(costs, ready.environment);
    return costs;
  } finally {
    child.send({ type: 'close' } satisfies CostParentMessage);
    await exited;
  }
}
