import { config } from '../config';
import { isFeatureOn } from '../features/store';
import { logger } from '../log';
import { recordLineageDelivery } from '../observability/metrics';
import { buildRunEvent, type RunEventInput } from './build';
import { endpointOf, type EventEndpoint } from './endpoints';

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
 * install (guarded-delivery.ts). An API route has none, so that the guard stays out of its
 * bundle: an event a route sends (ABORT on a cancel, FAIL of a job a reader found abandoned)
 * for a tenant with its own endpoint is counted as lost (docs/lineage.md).
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

async function deliver(endpoint: EventEndpoint, body: string, input: RunEventInput, tenantId: string): Promise<void> {
  const measured = { tenantId, jobId: input.jobId, kind: input.kind, eventType: input.eventType };
  const post = endpoint.own ? guardedPost : stagePost;
  // Without a way there (a tenant's own endpoint, from an API route), no attempt: lost at once.
  let lastError: unknown = new Error('a tenant’s own endpoint is reached from job workers only');
  for (let attempt = 1; post && attempt <= DELIVERY.attempts; attempt++) {
    try {
      await post(endpoint.url, body);
      deliveryCounts.delivered += 1;
      recordLineageDelivery({ delivered: true, ...measured });
      return;
    } catch (error) {
      lastError = error;
      if (attempt < DELIVERY.attempts)
        await new Promise((resolve) => setTimeout(resolve, DELIVERY.firstBackoffMs * 2 ** (attempt - 1)));
    }
  }
  deliveryCounts.failed += 1;
  recordLineageDelivery({ delivered: false, ...measured });
  logger.warn('openlineage delivery failed', {
    jobId: input.jobId,
    kind: input.kind,
    eventType: input.eventType,
    attempts: DELIVERY.attempts,
    failedEvents: deliveryCounts.failed,
    deliveredEvents: deliveryCounts.delivered,
    error: lastError as Error,
  });
}

/**
 * Sends the event `describe` resolves, when the tenant has the toggle on (which the stage
 * offers where it sets OPENLINEAGE_URL), to the tenant's own endpoint or else the stage's;
 * returns at once. `describe` reads what the job read and wrote: its failure is counted like a
 * failed delivery.
 */
export function sendRunEvent(tenantId: string, describe: () => Promise<RunEventInput | undefined>): void {
  if (config.openLineage.url === '') return;
  const sending = (async () => {
    if (!(await isFeatureOn(tenantId, 'openlineage'))) return;
    const endpoint = await endpointOf(tenantId);
    const input = await describe();
    if (input) await deliver(endpoint, JSON.stringify(buildRunEvent(input)), input, tenantId);
  })().catch((error: unknown) => {
    deliveryCounts.failed += 1;
    recordLineageDelivery({ delivered: false, tenantId });
    logger.warn('openlineage event not built', { failedEvents: deliveryCounts.failed, error: error as Error });
  });
  pending.add(sending);
  void sending.finally(() => pending.delete(sending));
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
