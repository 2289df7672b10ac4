/**
 * An OpenLineage receiver for tests, on a random 127.0.0.1 port (a Marquez stands here when
 * deployed): every event POSTed to it is recorded as tried, and accepted with 201, or refused
 * with 503 while `refusing`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { TwinOptions } from '../../infra/local/twin';
import { TOGGLE_CACHE_MS } from '../../shared/features/store';
import { RunEvent } from '../../shared/openlineage/events';
import { startTestTwin, type TestTwin } from './harness';

export interface LineageReceiver {
  readonly server: Server;
  /** Where the twin or a tenant's endpoint sends events: `http://127.0.0.1:<port>/api/v1/lineage`. */
  readonly url: string;
  readonly port: number;
  /** Every event answered 201, as POSTed. */
  readonly accepted: unknown[];
  /** Every event POSTed, accepted or refused. */
  readonly tried: unknown[];
  refusing: boolean;
  /** The accepted events, each read as a run event (a test fails on one that is not). */
  events(): RunEvent[];
}

export async function startLineageReceiver(): Promise<LineageReceiver> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      into.tried.push(event);
      if (!into.refusing) into.accepted.push(event);
      response.writeHead(into.refusing ? 503 : 201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const into: LineageReceiver = {
    server,
    port,
    url: `http://127.0.0.1:${port}/api/v1/lineage`,
    accepted: [],
    tried: [],
    refusing: false,
    events: () => into.accepted.map((event) => RunEvent.parse(event)),
  };
  return into;
}

/** A twin with OpenLineage on, sending to the stage's receiver, and a tenant's own receiver it may reach. */
export interface LineageTwin {
  readonly env: TestTwin;
  /** Where the stage's events go (OPENLINEAGE_URL). */
  readonly stage: LineageReceiver;
  /** A tenant's own endpoint: on loopback, which only the twin's allow-list lets it be. */
  readonly own: LineageReceiver;
  close(): Promise<void>;
}

/** Starts the two receivers and the twin (`options` added to its own), and turns OpenLineage on for every tenant. */
export async function startLineageTwin(options: TwinOptions = {}): Promise<LineageTwin> {
  const [stage, own] = await Promise.all([startLineageReceiver(), startLineageReceiver()]);
  const env = await startTestTwin({
    buckets: ['landing'],
    retryIntervalMs: 10,
    openLineageUrl: stage.url,
    allowOutbound: [`127.0.0.1:${own.port}`],
    ...options,
  });
  const toggle = await env.platformAdmin.call('setFeatureToggleDefault', {
    params: { toggle_name: 'openlineage' },
    body: { strategy: 'on' },
  });
  expect(toggle.status, toggle.text).toBe(200);
  // Each instance reads the toggles at most this often (shared/features/store.ts).
  await sleep(TOGGLE_CACHE_MS + 100);
  return {
    env,
    stage,
    own,
    async close() {
      await env.close();
      await Promise.all([stage, own].map((receiver) => new Promise((resolve) => receiver.server.close(resolve))));
    },
  };
}
