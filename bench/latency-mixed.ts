/**
 * The mixed load of issue 28 (item 5): 50 clients on a fresh twin, each going round the same
 * cycle of eight requests – create a connection, GET it, PATCH it, list connections, GET a data
 * table, one of its versions and that version's preview, then delete the connection it created –
 * so the load is the service's ordinary traffic rather than one route. Reported: req/s, p50 and
 * p99 over all requests and by route, and every non-2xx answer or connection error.
 *
 * The twin runs in a process of its own (bench/twin-process.ts, as for the other latency
 * phases); BENCH_CPU_PROF=<folder> writes a V8 CPU profile of the measured run there.
 * `tsx bench/latency-mixed.ts` runs this phase alone (for before/after comparisons).
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import autocannon from 'autocannon';
import { routeTable, type OperationId } from '../functions/routes';
import type { HttpMethod } from '../shared/http/route';
import { ApiClient, type RequestDescription } from '../test/support/api-client';
import { createBucketSource, createTable, importAndWait } from '../test/support/imports';
import { localS3Client } from '../test/support/local-s3';
import { BENCH_BUCKET, connectionRequest, type ParentMessage, type TwinReady } from './protocol';
import { forkTwin } from './twin-fork';
import { ask, nextMessage, percentile, sampleIntervalFor } from './twin-messages';

export interface MixedLoadSettings {
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Requests per route in the by-route pass (BY_ROUTE_REQUESTS unless set; a smoke run's few: bench/settings.ts). */
  readonly requestsPerRoute?: number;
}

/** Latency of one route (or of all of them) during the run, in ms. */
export interface MixedRouteResult {
  readonly name: string;
  readonly ok: number;
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
}

export interface MixedLoadResult {
  readonly settings: MixedLoadSettings;
  readonly requestsPerSecond: number;
  readonly all: MixedRouteResult;
  readonly routes: readonly MixedRouteResult[];
  /** CPU time the twin process spent per answered request (ms). */
  readonly serverCpuMsPerRequest: number;
  /** The twin's outbound calls (DynamoDB, KMS, S3 operations) per answered request, most frequent first. */
  readonly outboundPerRequest: readonly { readonly operation: string; readonly perRequest: number }[];
  /** Twin CPU ms per request of each route alone (requests one after another, after the mixed run). */
  readonly cpuMsByRoute: readonly { readonly name: string; readonly cpuMs: number }[];
  /** The machine's 1-minute load average at the end of the run (other agents share it). */
  readonly loadAverage: number;
}

/** The cycle each client goes round, in order. */
const CYCLE = [
  'createConnection',
  'getConnection',
  'mergeConnection',
  'listConnections',
  'getDataTable',
  'getDataVersion',
  'previewDataVersion',
  'deleteConnection',
] as const satisfies readonly OperationId[];

const routeName = (operationId: OperationId): string =>
  `${routeTable[operationId].method} ${routeTable[operationId].path}`;

/** A data table with one completed version (a small CSV on the twin's S3), for the table, version and preview GETs. */
async function seedTable(client: ApiClient, ready: TwinReady): Promise<{ tableId: number; versionNumber: number }> {
  const s3 = localS3Client(ready.s3Endpoint);
  try {
    const rows = Array.from({ length: 200 }, (_, index) => `${index},name ${index},${index * 1.5}`).join('\n');
    await s3.send(new PutObjectCommand({ Bucket: BENCH_BUCKET, Key: 'mixed/a.csv', Body: `id,name,price\n${rows}\n` }));
  } finally {
    s3.destroy();
  }
  const tableId = await createTable(
    client,
    await createBucketSource(client, ready.connectionId, `${BENCH_BUCKET}/mixed/`),
  );
  const version = await importAndWait(client, tableId);
  if (version.execution.status !== 'COMPLETED')
    throw new Error(`the bench table's import ended ${version.execution.status}`);
  return { tableId, versionNumber: version.version_number };
}

/** Numbers the bench's connection names: unique across runs, as names are per tenant (a warm-up may leave some behind). */
let sequence = 0;

/** What each autocannon client carries from one request of its cycle to the next. */
interface ClientState {
  connectionId?: number;
  sentAt: number;
}

/**
 * The cycle as autocannon requests. Each client's own connection (created first, deleted last)
 * keeps the tenant's size steady; latencies are taken from setupRequest to onResponse, by route.
 */
function cycleRequests(
  client: ApiClient,
  ready: TwinReady,
  table: { tableId: number; versionNumber: number },
  record: (operationId: OperationId, status: number, ms: number) => void,
): autocannon.Request[] {
  const states = new WeakMap<object, ClientState>();
  const stateOf = (context: object): ClientState => {
    const state = states.get(context) ?? { sentAt: 0 };
    states.set(context, state);
    return state;
  };
  const version = { data_table_id: table.tableId, version_number: table.versionNumber };
  const describe = (operationId: (typeof CYCLE)[number], connectionId: number): RequestDescription<HttpMethod> => {
    const connection = { connection_id: connectionId };
    switch (operationId) {
      case 'createConnection':
        return client.requestOf(operationId, { body: connectionRequest(`mixed-${++sequence}`, ready.s3Endpoint) });
      case 'getConnection':
      case 'deleteConnection':
        return client.requestOf(operationId, { params: connection });
      case 'mergeConnection':
        return client.requestOf(operationId, {
          params: connection,
          body: { id: connectionId, lock_version: 0, type: 'object_store', description: 'merged by the bench' },
        });
      case 'listConnections':
        return client.requestOf(operationId, {});
      case 'getDataTable':
        return client.requestOf(operationId, { params: { data_table_id: table.tableId } });
      case 'getDataVersion':
      case 'previewDataVersion':
        return client.requestOf(operationId, { params: version });
    }
  };
  // autocannon's paths replace the URL's whole path: the API's base path goes in front.
  const basePath = new URL(ready.apiUrl).pathname.replace(/\/$/, '');
  return CYCLE.map((operationId) => ({
    setupRequest: (request, context) => {
      const state = stateOf(context);
      // A failed create leaves no id: the rest of the cycle then answers 404 and counts as failed.
      const { method, path, headers, body } = describe(operationId, state.connectionId ?? 0);
      state.sentAt = performance.now();
      return { ...request, method, path: `${basePath}${path}`, headers, body };
    },
    onResponse: (status, body, context) => {
      const state = stateOf(context);
      record(operationId, status, performance.now() - state.sentAt);
      if (operationId === 'createConnection')
        state.connectionId = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined;
    },
  }));
}

/** Requests per route in the by-route pass: enough that the twin's CPU time per request is steady. */
const BY_ROUTE_REQUESTS = 100;

/**
 * The twin's CPU time per request of each route of the cycle alone, one request at a time:
 * what each route costs, which a profile of the mixed load cannot say (code resumed after an
 * await has no route in its stack). Creates make the connections the later routes use.
 */
async function cpuByRoute(
  child: ChildProcess,
  client: ApiClient,
  ready: TwinReady,
  table: { tableId: number; versionNumber: number },
  requests: number,
): Promise<{ name: string; cpuMs: number }[]> {
  const ids: number[] = [];
  const version = { data_table_id: table.tableId, version_number: table.versionNumber };
  const calls: Record<(typeof CYCLE)[number], (index: number) => Promise<{ status: number; text: string }>> = {
    createConnection: async () => {
      const response = await client.call('createConnection', {
        body: connectionRequest(`by-route-${++sequence}`, ready.s3Endpoint),
      });
      if (response.status === 201) ids.push(response.body.id);
      return response;
    },
    getConnection: (index) => client.call('getConnection', { params: { connection_id: ids[index]! } }),
    mergeConnection: (index) =>
      client.call('mergeConnection', {
        params: { connection_id: ids[index]! },
        body: { id: ids[index]!, lock_version: 0, type: 'object_store', description: 'merged by the bench' },
      }),
    listConnections: () => client.call('listConnections'),
    getDataTable: () => client.call('getDataTable', { params: { data_table_id: table.tableId } }),
    getDataVersion: () => client.call('getDataVersion', { params: version }),
    previewDataVersion: () => client.call('previewDataVersion', { params: version }),
    deleteConnection: (index) => client.call('deleteConnection', { params: { connection_id: ids[index]! } }),
  };
  const results: { name: string; cpuMs: number }[] = [];
  for (const operationId of CYCLE) {
    await ask(child, { type: 'reset' });
    for (let index = 0; index < requests; index++) {
      const response = await calls[operationId](index);
      if (response.status >= 300) throw new Error(`${operationId} answered ${response.status}: ${response.text}`);
    }
    const { cpuMs } = await ask(child, { type: 'stats' });
    results.push({ name: routeName(operationId), cpuMs: cpuMs / requests });
  }
  return results;
}

function summary(name: string, times: number[], failed: number): MixedRouteResult {
  const sorted = times.sort((a, b) => a - b);
  return { name, ok: sorted.length, failed, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Runs the mixed load once on a fresh twin: a discarded warm-up, then the measured run. */
export async function measureMixedLoad(settings: MixedLoadSettings): Promise<MixedLoadResult> {
  const child = forkTwin(new URL('./twin-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const ready = await nextMessage(child, 'ready');
    const client = new ApiClient(ready.apiUrl, ready.token);
    const table = await seedTable(client, ready);
    let times = new Map<OperationId, number[]>();
    let failures = new Map<OperationId, number>();
    const record = (operationId: OperationId, status: number, ms: number): void => {
      if (status >= 200 && status < 300) times.set(operationId, [...(times.get(operationId) ?? []), ms]);
      else failures.set(operationId, (failures.get(operationId) ?? 0) + 1);
    };
    const run = (duration: number) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        autocannon(
          {
            url: ready.apiUrl,
            connections: settings.connections,
            pipelining: 1,
            timeout: 10,
            duration,
            sampleInt: sampleIntervalFor(duration),
            requests: cycleRequests(client, ready, table, record),
          },
          (error: unknown, result) =>
            error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
        );
      });
    await run(settings.warmupSeconds);
    times = new Map();
    failures = new Map();
    await ask(child, { type: 'reset', ...(process.env.BENCH_CPU_PROF ? { profile: 'mixed-load' } : {}) });
    const result = await run(settings.seconds);
    const server = await ask(child, { type: 'stats' });
    const cpuMsByRoute = await cpuByRoute(child, client, ready, table, settings.requestsPerRoute ?? BY_ROUTE_REQUESTS);
    const all = [...times.values()].flat();
    // Connection errors and timeouts have no status: autocannon counts them apart.
    const failed = [...failures.values()].reduce((sum, count) => sum + count, 0) + result.errors + result.timeouts;
    return {
      settings,
      requestsPerSecond: all.length / result.duration,
      all: summary('all', all, failed),
      routes: CYCLE.map((operationId) =>
        summary(routeName(operationId), times.get(operationId) ?? [], failures.get(operationId) ?? 0),
      ),
      serverCpuMsPerRequest: server.cpuMs / Math.max(1, all.length),
      outboundPerRequest: server.outbound
        .map(({ operation, count }) => ({ operation, perRequest: count / Math.max(1, all.length) }))
        .sort((a, b) => b.perRequest - a.perRequest),
      cpuMsByRoute,
      loadAverage: loadavg()[0]!,
    };
  } finally {
    if (child.exitCode === null && child.connected) child.send({ type: 'close' } satisfies ParentMessage);
    else child.kill();
    const code = await exited;
    if (code !== 0) console.error(`twin process exited with code ${code}`);
  }
}

/** The report's section: the run's totals, then each route of the cycle. */
export function mixedLoadSection(result: MixedLoadResult): string[] {
  const { settings, all } = result;
  const row = (route: MixedRouteResult) =>
    `| ${route.name} | ${route.ok} | ${route.failed} | ${route.p50.toFixed(0)} | ${route.p99.toFixed(0)} |`;
  return [
    '## Mixed load',
    '',
    `${settings.connections} clients on a fresh twin for ${settings.seconds} s (after ${settings.warmupSeconds} s of warm-up), each going round: ` +
      `${CYCLE.join(', ')}. Load average (1 min) at the end: ${result.loadAverage.toFixed(2)}.`,
    '',
    `**${result.requestsPerSecond.toFixed(0)} req/s**, p50 ${all.p50.toFixed(0)} ms, p99 ${all.p99.toFixed(0)} ms, ` +
      `${all.failed} failed; twin CPU ${result.serverCpuMsPerRequest.toFixed(2)} ms per request; outbound calls per request: ` +
      result.outboundPerRequest.map(({ operation, perRequest }) => `${operation} ${perRequest.toFixed(2)}`).join(', ') +
      '.',
    '',
    // The twin answers on one thread: the stand-ins (dynalite, s3rver) run in the process that
    // runs the handlers, so its CPU per request bounds what any number of clients can get.
    `Bound of the one-process twin: 1000 / ${result.serverCpuMsPerRequest.toFixed(2)} ms = ` +
      `**${(1000 / result.serverCpuMsPerRequest).toFixed(0)} req/s** on one whole core, beside issue 28's target of ` +
      `${MIXED_LOAD_TARGET_RPS} req/s.`,
    '',
    '| route | ok | failed | p50 ms | p99 ms | twin CPU ms per request, alone |',
    '|---|--:|--:|--:|--:|--:|',
    ...result.routes.map((route, index) => `${row(route)} ${result.cpuMsByRoute[index]?.cpuMs.toFixed(2) ?? '–'} |`),
  ];
}

/** Issue 28's goal for the mixed load at 50 clients. */
export const MIXED_LOAD_TARGET_RPS = 294;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seconds = Number(process.env.BENCH_MIXED_SECONDS ?? 10);
  measureMixedLoad({ connections: 50, seconds, warmupSeconds: 2 }).then(
    (result) => {
      console.log(mixedLoadSection(result).join('\n'));
      process.exitCode = result.all.failed > 0 ? 1 : 0;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
