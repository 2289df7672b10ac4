/**
 * Latency of the API next to the raw store it sits on, measured the same way in the same run.
 *
 * Fairness on 2 cores: the twin (HTTP API emulation, handlers, local DynamoDB, KMS and S3 –
 * one Node event loop) runs in a child process, autocannon in this one, so each has a core
 * and the load generator's own CPU work never queues behind the server's event loop (or the
 * other way round). API and raw phases use identical autocannon settings (connections,
 * pipelining 1, duration, a discarded warm-up run) against the very same server process, and
 * alternate API/raw so drift (GC, JIT, a growing table) affects both sides alike.
 */
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { routeTable, type OperationId } from '../functions/routes';
import type { HttpMethod } from '../shared/http/route';
import { ApiClient, type RequestDescription } from '../test/support/api-client';
import { connectionRequest, type ParentMessage, type PhaseStats, type TwinReady } from './protocol';
import { forkTwin } from './twin-fork';
import { ask, nextMessage, percentile, sampleIntervalFor } from './twin-messages';

export interface LatencySettings {
  /** Concurrent clients of the latency phases (a GET, a create, and their raw counterparts). */
  readonly connections: number;
  /** Concurrent clients of the throughput phases: the GET and its raw GetItem again, under this load. */
  readonly loadConnections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

export interface PhaseResult {
  readonly name: string;
  readonly side: 'API' | 'raw';
  /** Concurrent clients (autocannon connections). */
  readonly connections: number;
  readonly p50: number;
  readonly p99: number;
  readonly requestsPerSecond: number;
  readonly ok: number;
  /** Non-2xx answers, connection errors and timeouts: any of these makes the phase invalid. */
  readonly failed: number;
  /** CPU time the twin process spent per answered request (ms). */
  readonly serverCpuMsPerRequest: number;
  /** CPU use during the phase, in % of one core: the twin, and autocannon (this process). */
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  /** What the server side saw during the phase. */
  readonly server: PhaseStats;
}

export interface Comparison {
  readonly api: PhaseResult;
  readonly raw: PhaseResult;
}

export interface LatencyReport {
  readonly settings: LatencySettings;
  readonly comparisons: readonly Comparison[];
}

interface Phase {
  readonly name: string;
  readonly side: 'API' | 'raw';
  readonly options: autocannon.Options & { readonly connections: number };
}

/**
 * One autocannon run. Latencies are taken from the 'response' events (fractional ms from
 * hrtime) because autocannon's own histogram has 1 ms resolution, too coarse for the raw store.
 */
function cannon(options: autocannon.Options): Promise<{ times: number[]; failed: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    const instance = autocannon(
      { ...options, sampleInt: sampleIntervalFor(Number(options.duration)) },
      (error: unknown, result) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else
          resolve({
            times: times.sort((a, b) => a - b),
            failed: result.non2xx + result.errors,
            seconds: result.duration,
          });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
}

async function rawItem(ready: TwinReady): Promise<Record<string, unknown>> {
  const response = await fetch(`${ready.dynamoEndpoint}/`, {
    method: 'POST',
    headers: { 'x-amz-target': 'DynamoDB_20120810.GetItem', 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({
      TableName: ready.tableName,
      Key: { pk: { S: ready.connectionKey.pk }, sk: { S: ready.connectionKey.sk } },
    }),
  });
  const { Item } = (await response.json()) as { Item?: Record<string, unknown> };
  if (!Item) throw new Error(`the bench connection's item ${JSON.stringify(ready.connectionKey)} is not in the table`);
  return Item;
}

/** A phase's name for an API operation: its method and path template in the route table. */
const routeName = (operationId: OperationId): string =>
  `${routeTable[operationId].method} ${routeTable[operationId].path}`;

/**
 * The six phases, in run order, each API phase right before its raw counterpart: the GET at
 * the latency load and at the throughput load (before the creates grow the table), then the
 * create.
 */
async function phases(ready: TwinReady, settings: LatencySettings): Promise<Phase[]> {
  const common = { connections: settings.connections, pipelining: 1, timeout: 10 };
  // API requests are the typed test client's (route table method and path, its headers and body), sent by autocannon.
  const client = new ApiClient(ready.apiUrl, ready.token);
  const api = ({ method, path, headers, body }: RequestDescription<HttpMethod>) => ({
    ...common,
    url: `${ready.apiUrl}${path}`,
    method,
    headers,
    body,
  });
  const raw = (operation: string) => ({
    ...common,
    url: `${ready.dynamoEndpoint}/`,
    method: 'POST' as const,
    headers: { 'x-amz-target': `DynamoDB_20120810.${operation}`, 'content-type': 'application/x-amz-json-1.0' },
  });
  // The PutItem writes a copy of the connection's own item (same size) under unique keys in a bench-only partition.
  const item = await rawItem(ready);
  let sequence = 0;
  const reads = (connections: number): Phase[] => [
    {
      name: routeName('getConnection'),
      side: 'API',
      options: {
        ...api(client.requestOf('getConnection', { params: { connection_id: ready.connectionId } })),
        connections,
      },
    },
    {
      name: 'DynamoDB GetItem (same item)',
      side: 'raw',
      options: {
        ...raw('GetItem'),
        connections,
        // ConsistentRead, as the API's read is.
        body: JSON.stringify({
          TableName: ready.tableName,
          Key: { pk: { S: ready.connectionKey.pk }, sk: { S: ready.connectionKey.sk } },
          ConsistentRead: true,
        }),
      },
    },
  ];
  return [
    ...reads(settings.connections),
    ...reads(settings.loadConnections),
    {
      name: routeName('createConnection'),
      side: 'API',
      options: {
        ...api(client.requestOf('createConnection', { body: connectionRequest('bench', ready.s3Endpoint) })),
        // A new name per request: names are unique per tenant.
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: client.requestOf('createConnection', {
                body: connectionRequest(`bench-${++sequence}`, ready.s3Endpoint),
              }).body,
            }),
          },
        ],
      },
    },
    {
      name: 'DynamoDB PutItem (unique key)',
      side: 'raw',
      options: {
        ...raw('PutItem'),
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                TableName: ready.tableName,
                Item: { ...item, pk: { S: 'BENCH#PUT' }, sk: { S: String(++sequence) } },
              }),
            }),
          },
        ],
      },
    },
  ];
}

/** A phase's CPU profile file name (BENCH_CPU_PROF): its order, side, name and load, in characters any file system takes. */
const profileName = (index: number, phase: Phase): string =>
  `${index + 1}-${phase.side}-${phase.name.replace(/[^\w]+/g, '_').replace(/^_|_$/g, '')}-${phase.options.connections}c`;

async function runPhase(
  child: ChildProcess,
  phase: Phase,
  index: number,
  settings: LatencySettings,
): Promise<PhaseResult> {
  await cannon({ ...phase.options, duration: settings.warmupSeconds });
  await ask(child, { type: 'reset', ...(process.env.BENCH_CPU_PROF ? { profile: profileName(index, phase) } : {}) });
  const loadCpu = process.cpuUsage();
  const { times, failed, seconds } = await cannon({ ...phase.options, duration: settings.seconds });
  const { user, system } = process.cpuUsage(loadCpu);
  const server = await ask(child, { type: 'stats' });
  return {
    name: phase.name,
    side: phase.side,
    connections: phase.options.connections,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    requestsPerSecond: times.length / seconds,
    ok: times.length,
    failed,
    serverCpuMsPerRequest: server.cpuMs / times.length,
    serverCpuPercent: server.cpuMs / (seconds * 10),
    loadCpuPercent: (user + system) / 1000 / (seconds * 10),
    server,
  };
}

export async function measureLatency(settings: LatencySettings): Promise<LatencyReport> {
  const child = forkTwin(new URL('./twin-process.ts', import.meta.url), {
    // BENCH_CPU_PROF=<folder> (inherited) makes the twin write a V8 CPU profile of each measured phase there (twin-process.ts).
    execArgv: ['--import', 'tsx'],
    // The twin's output goes to stderr so that stdout carries only the report.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const ready = await nextMessage(child, 'ready');
    const results: PhaseResult[] = [];
    for (const [index, phase] of (await phases(ready, settings)).entries())
      results.push(await runPhase(child, phase, index, settings));
    const comparisons: Comparison[] = [];
    for (let index = 0; index + 1 < results.length; index += 2)
      comparisons.push({ api: results[index]!, raw: results[index + 1]! });
    return { settings, comparisons };
  } finally {
    if (child.exitCode === null && child.connected) child.send({ type: 'close' } satisfies ParentMessage);
    else child.kill();
    const code = await exited;
    if (code !== 0) console.error(`twin process exited with code ${code}`);
  }
}
