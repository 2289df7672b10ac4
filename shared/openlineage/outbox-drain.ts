import { logger } from '../log';
import { DELIVERY, countDelivery, postWithRetries } from './emit';
import { endpointOf } from './endpoints';
import { claimEvent, queuedEvents, releaseEvent, removeEvent, type QueuedEvent } from './outbox';

/**
 * The drain of the outbox (outbox.ts, docs/lineage.md): run every minute by a function of its
 * own (functions/jobs/drain-lineage-outbox.ts, which installs the outbound guard), it sends
 * each queued event to where the tenant's events go now, through the guard for its own
 * endpoint. Each drain that claims an event tries DELIVERY.attempts POSTs; an event still not
 * accepted after OUTBOX.drains drains is counted lost (the LineageDeliveryFailed metric and
 * the `openlineage delivery failed` log line) and removed. A claim is conditional and leased,
 * so overlapping drains never send one event twice; a drain that died holding one lets it go
 * when the lease ends.
 */

export const OUTBOX = {
  /** Drains that may try an event before it is counted lost: at most drains × DELIVERY.attempts POSTs. */
  drains: 3,
  /** How long a claim holds: past any one event's POSTs and backoff (3 × 2 s + 0.6 s). */
  leaseMs: 60_000,
  /** Events read and sent together; a drain goes on page by page. */
  pageSize: 25,
  /** A drain stops taking pages after this long, well within its function's timeout: the next drain goes on. */
  budgetMs: 40_000,
} as const;

/** What one drain did: events delivered, counted lost, left for a later drain, skipped (another drain's). */
export interface DrainResult {
  delivered: number;
  lost: number;
  retrying: number;
  skipped: number;
}

async function drainOne(queued: QueuedEvent, result: DrainResult): Promise<void> {
  const now = Date.now();
  const claimed = await claimEvent(queued, now, now + OUTBOX.leaseMs);
  if (!claimed) {
    result.skipped += 1;
    return;
  }
  const { record } = claimed;
  const measured = {
    tenantId: record.tenant_id,
    jobId: record.job_id,
    kind: record.kind,
    eventType: record.event_type,
  };
  // Where the tenant's events go now: an endpoint cleared since goes back to the stage's.
  const error = await postWithRetries(await endpointOf(record.tenant_id), record.event);
  if (error === undefined) {
    await removeEvent(claimed);
    countDelivery(measured);
    result.delivered += 1;
  } else if (record.attempts >= OUTBOX.drains) {
    await removeEvent(claimed);
    countDelivery(measured, { error, attempts: record.attempts * DELIVERY.attempts });
    result.lost += 1;
  } else {
    await releaseEvent(claimed);
    result.retrying += 1;
  }
}

/** One drain of the outbox: every queued event tried once (within OUTBOX.budgetMs), then its result. */
export async function drainOutbox(): Promise<DrainResult> {
  const result: DrainResult = { delivered: 0, lost: 0, retrying: 0, skipped: 0 };
  const started = Date.now();
  let after: string | undefined;
  while (Date.now() - started < OUTBOX.budgetMs) {
    const page = await queuedEvents(after, OUTBOX.pageSize);
    // One event's failure (a read or a write of its item) leaves it to a later drain, never the others.
    await Promise.all(
      page.map((queued) =>
        drainOne(queued, result).catch((error: unknown) => {
          result.retrying += 1;
          logger.warn('openlineage outbox event not drained', { jobId: queued.record.job_id, error: error as Error });
        }),
      ),
    );
    if (page.length < OUTBOX.pageSize) break;
    after = page.at(-1)!.id;
  }
  if (result.delivered + result.lost + result.retrying > 0) logger.info('openlineage outbox drained', { ...result });
  return result;
}
