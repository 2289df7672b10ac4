/**
 * The server side of the import-throughput bench, run as a child process (started by
 * bench/import-throughput.ts): the local twin with a bucket for the source CSV, as `npm start`
 * runs it – API, local DynamoDB/KMS/S3/Step Functions and the import worker with DuckDB, all
 * in this one process.
 *
 * It watches the work without changing it, so the bench can say where an import's time goes:
 * - the worker's invocation (a wrapper around the twin's own worker loader);
 * - every outbound HTTP call (S3, DynamoDB, KMS, Step Functions) from Node's HTTP diagnostics
 *   channels: start, response headers, end of the response body;
 * - every DuckDB statement and instance creation (the @duckdb/node-api classes are shared with
 *   the worker, so timing wrappers on their methods see the worker's SQL);
 * - the process's CPU time, event-loop utilisation and longest event-loop delay.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { importJob } from '../shared/data-tables/jobs';
import type { WorkerSpec } from '../shared/jobs/define-job';
import { loadWorkerHandler, type WorkerFunction } from '../infra/local/stepfunctions';
import { startTwin } from '../infra/local/twin';
import { statementLabel } from './engine-span';
import { watchEngineProcesses } from './engine-process-watch';
import { bareImport } from './import-bare';
import { SOURCE_BUCKET, now, type BareInTwinDone, type Span } from './import-protocol';
import { s3Client } from './import-twin';
import { sendToParent, serveToParent } from './twin-child';

let spans: Span[] = [];
const record = (span: Span): void => {
  spans.push(span);
};

function instrumentDuckDb(): void {
  const run = DuckDBConnection.prototype.run;
  DuckDBConnection.prototype.run = async function timedRun(
    this: DuckDBConnection,
    ...args: Parameters<DuckDBConnection['run']>
  ) {
    const start = now();
    try {
      return await run.apply(this, args);
    } finally {
      record({ kind: 'DuckDB', label: statementLabel(args[0]), start, end: now() });
    }
  };
  const create = DuckDBInstance.create.bind(DuckDBInstance);
  DuckDBInstance.create = async (...args: Parameters<typeof DuckDBInstance.create>) => {
    const start = now();
    try {
      return await create(...args);
    } finally {
      record({ kind: 'DuckDB', label: 'DuckDBInstance.create', start, end: now() });
    }
  };
}

/** Worker invocations still running: the version reads COMPLETED a moment before the handler returns. */
const inFlight = new Set<Promise<unknown>>();

/** The worker's invocations, timed around the twin's own loader (the handler itself is untouched). */
async function timedWorkerLoader(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  return (input, context) => {
    const start = now();
    const invocation = handler(input, context).finally(() => {
      record({ kind: 'worker', label: worker.name, start, end: now() });
      inFlight.delete(invocation);
    });
    inFlight.add(invocation);
    return invocation;
  };
}

/** Waits (at most `ms`) for the running worker invocations to return, so the profile holds their spans. */
async function settleWorkers(ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function s3Label(request: ClientRequest): string {
  const url = new URL(request.path, 'http://s3');
  const target = decodeURIComponent(url.pathname.slice(1));
  const operation =
    url.searchParams.get('x-id') ?? (url.searchParams.has('list-type') ? 'ListObjectsV2' : request.method);
  return `${operation} ${target}${url.searchParams.has('prefix') ? ` prefix=${url.searchParams.get('prefix')}` : ''}`;
}

/** Outbound calls and API requests, from Node's HTTP diagnostics channels. */
function watchHttp(ports: { api: number; s3: number; dynamo: number; sfn: number }) {
  const apiStarted = new WeakMap<ServerResponse, number>();
  let apiRequests = 0;
  let apiHeldMs = 0;
  const outbound = new WeakMap<ClientRequest, { start: number; headers?: number }>();

  subscribe('http.server.request.start', (message) => {
    const { socket, response } = message as { socket: Socket; response: ServerResponse };
    if (socket.localPort === ports.api) apiStarted.set(response, now());
  });
  subscribe('http.server.response.finish', (message) => {
    const begin = apiStarted.get((message as { response: ServerResponse }).response);
    if (begin === undefined) return;
    apiRequests += 1;
    apiHeldMs += now() - begin;
  });
  subscribe('http.client.request.start', (message) => {
    outbound.set((message as { request: ClientRequest }).request, { start: now() });
  });
  subscribe('http.client.response.finish', (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const timing = outbound.get(request);
    if (!timing) return;
    const headers = now();
    const port = Number(String(request.getHeader('host') ?? '').split(':')[1]);
    const target = String(request.getHeader('x-amz-target') ?? '');
    const operation = target.slice(target.indexOf('.') + 1);
    let kind: Span['kind'] = 'other';
    let label = `${request.method} ${request.host}:${port}${request.path}`;
    if (port === ports.s3) [kind, label] = ['S3', s3Label(request)];
    else if (port === ports.dynamo) [kind, label] = ['DynamoDB', operation];
    else if (port === ports.sfn) [kind, label] = ['SFN', operation];
    else if (target.startsWith('TrentService.')) [kind, label] = ['KMS', operation];
    const requestBytes = Number(request.getHeader('content-length') ?? 0) || undefined;
    const responseBytes = Number(response.headers['content-length'] ?? 0) || undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      record({ kind, label, start: timing.start, headers, end: now(), requestBytes, responseBytes });
    };
    // Listening for 'end' does not put the stream in flowing mode: the SDK still reads the body itself.
    response.once('end', finish);
    response.once('close', finish);
  });

  return {
    reset(): void {
      apiRequests = 0;
      apiHeldMs = 0;
    },
    totals: () => ({ apiRequests, apiHeldMs }),
  };
}

async function main(): Promise<void> {
  instrumentDuckDb();
  await watchEngineProcesses(record);
  const twin = await startTwin({ buckets: [SOURCE_BUCKET], loadWorker: timedWorkerLoader });
  const port = (url: string | undefined) => Number(new URL(url ?? 'http://x:0').port);
  const http = watchHttp({
    api: port(twin.apiUrl),
    s3: twin.s3.port,
    dynamo: port(twin.dynamoEndpoint),
    sfn: port(process.env.AWS_ENDPOINT_URL_SFN),
  });
  // The worker module (and DuckDB's native binding) loaded now, so the first import does not pay tsx's compile of its import graph.
  await loadWorkerHandler(importJob.worker);

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let cpu = process.cpuUsage();
  let loop: EventLoopUtilization = performance.eventLoopUtilization();

  const s3 = s3Client(twin.s3.endpoint);
  serveToParent(twin, (message) => {
    if (message.type === 'bare') {
      // The bench's bare script in this process, with the worker's engine: what sharing the process costs it.
      void bareImport(s3, tmpdir(), message.label, message.rows, 'worker')
        .then(
          (result): BareInTwinDone => ({ type: 'bare-done', result }),
          (error: unknown): BareInTwinDone => ({ type: 'bare-done', error: String(error) }),
        )
        .then(sendToParent);
    } else if (message.type === 'reset') {
      spans = [];
      http.reset();
      loopDelay.reset();
      cpu = process.cpuUsage();
      loop = performance.eventLoopUtilization();
      sendToParent({ type: 'reset-done' });
    } else if (message.type === 'profile') {
      const { user, system } = process.cpuUsage(cpu);
      const eventLoopUtilization = performance.eventLoopUtilization(loop).utilization;
      const eventLoopMaxDelayMs = loopDelay.max / 1e6;
      const totals = http.totals();
      void settleWorkers(5_000).then(() =>
        sendToParent({
          type: 'profile',
          cpuMs: (user + system) / 1000,
          eventLoopUtilization,
          eventLoopMaxDelayMs,
          ...totals,
          spans,
        }),
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
