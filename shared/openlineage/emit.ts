import { config } from '../config';
import { isFeatureOn } from '../features/store';
import { logger } from '../log';
import { recordLineageDelivery } from '../observability/metrics';
import { buildRunEvent, type RunEventInput } from './build';
import { endpointOf, type EventEndpoint } from './endpoints';
import { queueEvent } from './outbox';

/**
 * Delivery of run events to the tenant's endpoint (its own, set by an admin, else the stage's
 * OPENLINEAGE_URL: endpoints.ts), while the tenant's `openlineage` toggle is on. Delivery never slows or fails a job: events are sent beside
 * the work, each POST bounded in time and retried a bounded number of times; what still
 * fails is counted and logged (`openlineage delivery failed`, with the counts), never thrown.
 * Each event writes its metric line, delivered or lost (LineageDelivered, LineageDeliveryFailed:
 * docs/operations.md, the lineage-delivery-failures alarm).
 */

/** Tries per event, and the wait before each retry (doubling). */
export const DELIVERY = { attempts: 3, firstBackoffMs: 200, timeoutMs: 2_000 } as const;
/** How long a worker waits, after its job is recorded, for events still in flight: past it they are counted lost. */
export const FLUSH_MS = 5_000;

/** Events delivered and lost by this process, for the operator's log lines and the tests. */
export const deliveryCounts = { delivered: 0, failed: 0 };

const pending = new Set<Promise<void>>();

/** One POST of an event to a URL; throws when it was not accepted. */
type Post = (url: string, body: string) => Promise<void>;

/**
 * How events reach a tenant's own endpoint: through the outbound guard, which job workers
 * and the outbox drain install (guarded-delivery.ts). An API route has none, so that the guard
 * stays out of its bundle: the end event a route may send (ABORT on a cancel, FAIL of a job a
 * reader found abandoned) goes to the outbox for such a tenant (sendRunEnd, docs/lineage.md).
 */
let guardedPost: Post | undefined;

/** Sets how this process reaches tenants' own endpoints (guarded-delivery.ts installGuardedDelivery). */
export function useGuardedPost(post: Post): void {
  guardedPost = post;
}

/** The stage's endpoint is the operator's own: a plain fetch. */
async function stagePost(url: string, body: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(DELIVERY.timeoutMs),
  });
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (response.status >= 300) throw new Error(`the endpoint answered ${response.status}`);
}

/** What a delivery's metric line and log line name. */
export interface DeliveryMeasure {
  readonly tenantId: string;
  readonly jobId: string;
  readonly kind: string;
  readonly eventType: string;
}

/**
 * POSTs the event to the endpoint (a tenant's own only through the guard this process
 * installed), DELIVERY.attempts times with backoff: undefined once accepted, else why not.
 */
export async function postWithRetries(endpoint: EventEndpoint, body: string): Promise<unknown> {
  const post = endpoint.own ? guardedPost : stagePost;
  // Without a way there (a tenant's own endpoint, from a process without the guard), no attempt.
  let lastError: unknown = new Error('a tenant’s own endpoint is reached from job workers only');
  for (let attempt = 1; post && attempt <= DELIVERY.attempts; attempt++) {
    try {
      await post(endpoint.url, body);
      return undefined;
    } catch (error) {
      lastError = error;
      if (attempt < DELIVERY.attempts)
        await new Promise((resolve) => setTimeout(resolve, DELIVERY.firstBackoffMs * 2 ** (attempt - 1)));
    }
  }
  return lastError;
}

/** Counts an event delivered, or (with its last error) lost after `attempts` POSTs: the metric line, and a log line when lost. */
export function countDelivery(measured: DeliveryMeasure, failure?: { error: unknown; attempts: number }): void {
  recordLineageDelivery({ delivered: failure === undefined, ...measured });
  if (failure === undefined) {
    deliveryCounts.delivered += 1;
    return;
  }
  deliveryCounts.failed += 1;
  logger.warn('openlineage delivery failed', {
    jobId: measured.jobId,
    kind: measured.kind,
    eventType: measured.eventType,
    attempts: failure.attempts,
    failedEvents: deliveryCounts.failed,
    deliveredEvents: deliveryCounts.delivered,
    error: failure.error as Error,
  });
}

async function deliver(endpoint: EventEndpoint, body: string, input: RunEventInput, tenantId: string): Promise<void> {
  const error = await postWithRetries(endpoint, body);
  const measured = { tenantId, jobId: input.jobId, kind: input.kind, eventType: input.eventType };
  countDelivery(measured, error === undefined ? undefined : { error, attempts: DELIVERY.attempts });
}

/**
 * Starts sending the event `describe` resolves, when the tenant has the toggle on; resolves
 * once it is handed off (its POSTs started, or it is queued), never rejects. With `queueOwn`,
 * an event for a tenant's own endpoint is queued in the outbox (outbox.ts) for the drain
 * rather than POSTed.
 */
function send(tenantId: string, describe: () => Promise<RunEventInput | undefined>, queueOwn: boolean): Promise<void> {
  if (config.openLineage.url === '') return Promise.resolve();
  let handedOff: () => void = () => undefined;
  const handed = new Promise<void>((resolve) => (handedOff = resolve));
  const sending = (async () => {
    if (!(await isFeatureOn(tenantId, 'openlineage'))) return;
    const endpoint = await endpointOf(tenantId);
    const input = await describe();
    if (!input) return;
    const body = JSON.stringify(buildRunEvent(input));
    if (endpoint.own && queueOwn) {
      await queueEvent({
        tenant_id: tenantId,
        job_id: input.jobId,
        kind: input.kind,
        event_type: input.eventType,
        event: body,
      });
      return;
    }
    handedOff();
    await deliver(endpoint, body, input, tenantId);
  })()
    .catch((error: unknown) => {
      deliveryCounts.failed += 1;
      recordLineageDelivery({ delivered: false, tenantId });
      logger.warn('openlineage event not built', { failedEvents: deliveryCounts.failed, error: error as Error });
    })
    .finally(handedOff);
  pending.add(sending);
  void sending.finally(() => pending.delete(sending));
  return handed;
}

/**
 * Sends the event `describe` resolves, when the tenant has the toggle on (which the stage
 * offers where it sets OPENLINEAGE_URL), to the tenant's own endpoint or else the stage's;
 * returns at once. `describe` reads what the job read and wrote: its failure is counted like a
 * failed delivery.
 */
export function sendRunEvent(tenantId: string, describe: () => Promise<RunEventInput | undefined>): void {
  void send(tenantId, describe, false);
}

/**
 * Sends a run's end event from whichever process ended the job: to the stage's endpoint
 * beside the caller's work, as sendRunEvent; for a tenant with its own endpoint, queued in
 * the outbox, which a worker with the outbound guard drains (outbox-drain.ts). Resolves once
 * it is POSTing or queued (a route's Lambda may freeze as soon as it answers: the queued
 * event must be written by then), never rejects.
 */
export function sendRunEnd(tenantId: string, describe: () => Promise<RunEventInput | undefined>): Promise<void> {
  return send(tenantId, describe, true);
}

/** Waits for the events in flight, at most FLUSH_MS: a Lambda freezes what is left when it returns. */
export async function flushRunEvents(): Promise<void> {
  if (pending.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([...pending]),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_MS);
    }),
  ]);
  clearTimeout(timer);
}
