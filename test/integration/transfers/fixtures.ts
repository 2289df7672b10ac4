/**
 * Building blocks of the transfer tests, over the public API: a twin with the transfers
 * feature on that may reach the pricing DIM fake (infra/local/fakes/pricing-dim.ts), a pricing_dim
 * connection to it with a type mapping, pricing targets, transfers polled until they end, and
 * a relay in front of the DIM that refuses batches from a sequence on (a failure half-way).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { expect } from 'vitest';
import { TOGGLE_CACHE_MS } from '../../../shared/features/store';
import { startPricingDim, type PricingDimFake } from '../../../infra/local/fakes/pricing-dim';
import { listenLocally, type Listening } from '../../../infra/local/fakes/local-server';
import { asBody, type ApiClient, type RequestBody, type ResponseBody } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { waitForJob } from '../../support/imports';
import type { TwinOptions } from '../../../infra/local/twin';

export type Transfer = ResponseBody<'getTransfer'>;

export interface TransferStack {
  readonly env: TestTwin;
  readonly dim: PricingDimFake;
  readonly relay: BatchRelay;
  close(): Promise<void>;
}

/**
 * An HTTP relay to the DIM that answers 500 to every batch whose sequence is `refuseFrom` or
 * later (the connector's retries then give up): the pricing system took the batches before.
 */
export interface BatchRelay {
  readonly host: string;
  refuseFrom: number | undefined;
}

async function startRelay(dimHost: string): Promise<BatchRelay & { close(): Promise<void> }> {
  const upstream = new URL(dimHost);
  const relay: BatchRelay = { host: '', refuseFrom: undefined };
  const server: Server = createServer((incoming, answer) => {
    const sequence = /^\/uploads\/[^/]+\/batches\/(\d+)$/.exec(incoming.url ?? '')?.[1];
    if (sequence !== undefined && relay.refuseFrom !== undefined && Number(sequence) >= relay.refuseFrom) {
      incoming.resume();
      answer.writeHead(500, { 'content-type': 'application/json' });
      return void answer.end(JSON.stringify({ error: 'internal', message: 'relay refused the batch' }));
    }
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  });
  const listening: Listening = await listenLocally(server);
  return Object.assign(relay, { host: `http://127.0.0.1:${listening.port}`, close: () => listening.close() });
}

/** Turns a toggle on for the tenant and waits until every route's snapshot sees it. */
export async function turnOn(
  env: TestTwin,
  tenantId: string,
  toggle: 'transfers' | 'quota_enforcement',
): Promise<void> {
  const on = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: toggle, tenant_id: tenantId },
    body: { strategy: 'on' },
  });
  expect(on.status, on.text).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, TOGGLE_CACHE_MS + 100));
}

/** The DIM fake, a relay in front of it, and a twin that may reach both, with transfers on for the admin's tenant. */
export async function startTransferStack(options: TwinOptions = {}): Promise<TransferStack> {
  const dim = await startPricingDim();
  const relay = await startRelay(dim.host);
  const ports = [dim.host, relay.host, new URL(dim.tokenUrl).origin].map((url) => `127.0.0.1:${new URL(url).port}`);
  const env = await startTestTwin({ buckets: ['landing'], retryIntervalMs: 10, ...options, allowOutbound: ports });
  await turnOn(env, env.admin.tenantId!, 'transfers');
  return {
    env,
    dim,
    relay,
    async close() {
      await env.close();
      await relay.close();
      await dim.stop();
    },
  };
}

let sequence = 0;

/** A pricing_dim connection to the fake (or the relay, with `via`), with `typeMapping` when given. */
export async function dimConnection(
  api: ApiClient,
  dim: PricingDimFake,
  options: { readonly typeMapping?: Record<string, string>; readonly via?: string } = {},
): Promise<number> {
  const created = await api.call('createConnection', {
    body: asBody('createConnection', {
      name: `pricing dim #${(sequence += 1)} ${process.pid}`,
      type: 'pricing_dim',
      auth: {
        auth_type: 'oauth_client_credentials',
        token_url: dim.tokenUrl,
        client_id: dim.clientId,
        client_secret: dim.clientSecret,
        scope: dim.scope,
        host: options.via ?? dim.host,
      },
    }),
  });
  expect(created.status, created.text).toBe(201);
  if (!options.typeMapping) return created.body.id;
  const mapped = await api.call('updateConnectionTypeMapping', {
    params: { connection_id: created.body.id },
    body: {
      id: created.body.id,
      lock_version: created.body.lock_version,
      type_mapping: JSON.stringify(options.typeMapping),
    },
  });
  expect(mapped.status, mapped.text).toBe(200);
  return created.body.id;
}

/** A pricing target through `connectionId`; its table path is unique unless given. */
export async function pricingTarget(
  api: ApiClient,
  connectionId: number,
  paths: { readonly project_path?: string; readonly table_path?: string } = {},
): Promise<ResponseBody<'getTarget'>> {
  const created = await api.call('createTarget', {
    body: asBody('createTarget', {
      name: `prices #${(sequence += 1)} ${process.pid}`,
      type: 'pricing',
      connection_id: connectionId,
      project_path: paths.project_path ?? '\\Pricing\\Europe',
      table_path: paths.table_path ?? `Prices\\T${sequence}\\`,
    }),
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

export function transferRequest(
  targetId: number,
  source: Pick<RequestBody<'startTransfer'>, 'source_type' | 'source_id' | 'source_version'>,
): RequestBody<'startTransfer'> {
  return asBody('startTransfer', { target_id: targetId, ...source });
}

export function waitForTransfer(api: ApiClient, transferId: number): Promise<Transfer> {
  return waitForJob(
    () => api.call('getTransfer', { params: { transfer_id: transferId } }),
    (body) => body.execution,
  );
}

/** Starts a transfer and waits for its end. */
export async function transferAndWait(
  api: ApiClient,
  request: RequestBody<'startTransfer'>,
  idempotencyKey?: string,
): Promise<Transfer> {
  const started = await api.call('startTransfer', {
    body: request,
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
  expect(started.status, started.text).toBe(202);
  return waitForTransfer(api, started.body.transfer_id);
}
