/**
 * The server side of the latency bench, run as a child process (latency.ts says why): starts
 * the local twin in this process with startTwin(), obtains a token, creates the object_store
 * connection the GET phase reads, and reports all of it to the parent over IPC.
 *
 * It also watches Node's HTTP diagnostics channels to say where the server's time goes: how
 * long the API server holds each request, and every outbound SDK call the handlers make
 * (DynamoDB, KMS, S3 – all served by this same process).
 */
import { subscribe } from 'node:diagnostics_channel';
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { ClientRequest, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { startTwin } from '../infra/local/twin';
import { keys } from '../shared/db/keys';
import { ApiClient } from '../test/support/api-client';
import { exchangeToken } from '../test/support/harness';
import { BENCH_BUCKET, connectionRequest, type ChildMessage, type ParentMessage } from './protocol';

function send(message: ChildMessage): void {
  if (!process.send) throw new Error('bench/twin-process.ts is started by bench/latency.ts (it needs an IPC channel)');
  process.send(message);
}

interface Tally {
  count: number;
  totalMs: number;
}

/** Times API requests and outbound calls, and takes this process's CPU time, while a phase runs; reset between phases. */
function watchHttp(apiPort: number, serviceByPort: ReadonlyMap<number, string>) {
  const started = new WeakMap<object, number>();
  let api: Tally = { count: 0, totalMs: 0 };
  let outbound = new Map<string, Tally>();
  let cpu = process.cpuUsage();

  subscribe('http.server.request.start', (message) => {
    const { socket, response } = message as { socket: Socket; response: ServerResponse };
    if (socket.localPort === apiPort) started.set(response, performance.now());
  });
  subscribe('http.server.response.finish', (message) => {
    const begin = started.get((message as { response: ServerResponse }).response);
    if (begin !== undefined) api = { count: api.count + 1, totalMs: api.totalMs + performance.now() - begin };
  });
  subscribe('http.client.request.start', (message) => {
    started.set((message as { request: ClientRequest }).request, performance.now());
  });
  // Published when the response headers arrive; the twin's answers are small, so that is the whole answer.
  subscribe('http.client.response.finish', (message) => {
    const { request } = message as { request: ClientRequest };
    const begin = started.get(request);
    if (begin === undefined) return;
    // DynamoDB and KMS name the operation in x-amz-target ("DynamoDB_20120810.GetItem", "TrentService.Decrypt").
    const target = String(request.getHeader('x-amz-target') ?? '');
    const port = Number(String(request.getHeader('host') ?? '').split(':')[1]);
    const service = target.startsWith('TrentService.') ? 'KMS' : (serviceByPort.get(port) ?? request.host);
    const operation = `${service} ${target ? target.slice(target.indexOf('.') + 1) : request.method}`;
    const tally = outbound.get(operation) ?? { count: 0, totalMs: 0 };
    outbound.set(operation, { count: tally.count + 1, totalMs: tally.totalMs + performance.now() - begin });
  });

  return {
    reset(): void {
      api = { count: 0, totalMs: 0 };
      outbound = new Map();
      cpu = process.cpuUsage();
    },
    stats(): ChildMessage {
      const { user, system } = process.cpuUsage(cpu);
      return {
        type: 'stats',
        cpuMs: (user + system) / 1000,
        apiRequests: api.count,
        apiMeanMs: api.count === 0 ? 0 : api.totalMs / api.count,
        outbound: [...outbound].map(([operation, { count, totalMs }]) => ({
          operation,
          count,
          meanMs: totalMs / count,
        })),
      };
    },
  };
}

/**
 * V8 CPU profiles of single phases (BENCH_CPU_PROF=<folder>; open them in Chrome DevTools):
 * a profile of the whole process would mix phases, set-up and idle time.
 */
function phaseProfiler(folder: string | undefined) {
  const session = new Session();
  let connected = false;
  /** The running profile's file. */
  let file: string | undefined;
  return {
    async start(name: string | undefined): Promise<void> {
      if (folder === undefined || name === undefined) return;
      if (!connected) {
        session.connect();
        connected = true;
        await session.post('Profiler.enable');
      }
      file = join(folder, `${name}.cpuprofile`);
      await session.post('Profiler.start');
    },
    async stop(): Promise<void> {
      const target = file;
      if (target === undefined) return;
      file = undefined;
      const { profile } = await session.post('Profiler.stop');
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, JSON.stringify(profile));
    },
  };
}

async function main(): Promise<void> {
  const twin = await startTwin({ buckets: [BENCH_BUCKET] });
  const token = await exchangeToken(twin.apiUrl, twin.admin.client_id, twin.admin.client_secret);
  const response = await new ApiClient(twin.apiUrl, token).call('createConnection', {
    body: connectionRequest('bench', twin.s3.endpoint),
  });
  if (response.status !== 201)
    throw new Error(`creating the bench connection failed: ${response.status} ${response.text}`);
  const { id } = response.body;

  const watcher = watchHttp(
    Number(new URL(twin.apiUrl).port),
    new Map([
      [Number(new URL(twin.dynamoEndpoint).port), 'DynamoDB'],
      [twin.s3.port, 'S3'],
    ]),
  );
  const profiler = phaseProfiler(process.env.BENCH_CPU_PROF);
  const fail = (error: unknown): void => {
    console.error(error);
    process.exit(1);
  };
  process.on('message', (received: unknown) => {
    const message = received as ParentMessage;
    // Both are answered with the stats, so the parent knows the reset happened before it starts the load.
    if (message.type === 'reset') {
      profiler.start(message.profile).then(() => {
        watcher.reset();
        send(watcher.stats());
      }, fail);
    } else if (message.type === 'stats') {
      // Taken before the profile is written, which is not the phase's work.
      const stats = watcher.stats();
      profiler.stop().then(() => send(stats), fail);
    } else {
      twin.close().then(() => process.exit(0), fail);
    }
  });

  send({
    type: 'ready',
    apiUrl: twin.apiUrl,
    dynamoEndpoint: twin.dynamoEndpoint,
    s3Endpoint: twin.s3.endpoint,
    tableName: process.env.TABLE_NAME ?? '',
    token,
    connectionId: id,
    connectionKey: keys.entity(twin.admin.tenant_id, 'CONNECTION', id),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
