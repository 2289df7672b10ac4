import * as z from 'zod';
import { allOf, is } from '../db/expressions';
import { PlatformRecords } from '../db/platform-records';

/**
 * The outbox of run events for tenants' own endpoints (docs/lineage.md): the FAIL or ABORT the
 * status write that ended a job sends (shared/jobs/job-end.ts) is queued here when the
 * tenant has its own endpoint, because that write may run in an API route (a cancel, a failed
 * start, a reader finding the job abandoned), which does not carry the outbound guard every
 * event to such an endpoint goes through. The drain (outbox-drain.ts, a function the stage
 * runs every minute) sends it. This module only stores: it is in every route that can end a job.
 */

/** One queued event: the event's JSON as built when the job ended (its eventTime is the end's). */
export const OutboxEvent = z.object({
  tenant_id: z.string(),
  job_id: z.string(),
  kind: z.string(),
  event_type: z.string(),
  /** The run event, serialised: what is POSTed. */
  event: z.string(),
  /** Drains that have claimed it so far (each tries DELIVERY.attempts POSTs). */
  attempts: z.int().nonnegative(),
  /** Until when (epoch ms) the drain that claimed it last owns it; 0 when none does. */
  claimed_until: z.int().nonnegative(),
  queued_at: z.iso.datetime(),
});
export type OutboxEvent = z.infer<typeof OutboxEvent>;

const outbox = new PlatformRecords('OPENLINEAGE_OUTBOX', OutboxEvent);

/** A queued event and its record id. */
export interface QueuedEvent {
  readonly id: string;
  readonly record: OutboxEvent;
}

/** Queues a run's end event; a second queueing of the same one (a repeated status write cannot make one) keeps the first. */
export async function queueEvent(event: Pick<OutboxEvent, 'tenant_id' | 'job_id' | 'kind' | 'event_type' | 'event'>) {
  const id = `${event.tenant_id}#${event.job_id}#${event.event_type}`;
  await outbox.create(id, { ...event, attempts: 0, claimed_until: 0, queued_at: new Date().toISOString() });
}

/** At most `limit` queued events after record id `after`, in id order. */
export async function queuedEvents(after: string | undefined, limit: number): Promise<QueuedEvent[]> {
  const found = await outbox.page(after, limit);
  return found.map((record) => ({ id: `${record.tenant_id}#${record.job_id}#${record.event_type}`, record }));
}

/**
 * Claims the event for one drain until `until` (epoch ms), counting the attempt; false when
 * another drain claimed it since it was read (its attempts moved) or still owns it, so that
 * two drains never send one event twice.
 */
export async function claimEvent(queued: QueuedEvent, now: number, until: number): Promise<QueuedEvent | undefined> {
  if (queued.record.claimed_until > now) return undefined;
  const record = { ...queued.record, attempts: queued.record.attempts + 1, claimed_until: until };
  const claimed = await outbox.putIf(
    queued.id,
    record,
    allOf(is.equal('attempts', queued.record.attempts), is.equal('claimed_until', queued.record.claimed_until)),
  );
  return claimed ? { id: queued.id, record } : undefined;
}

/** Lets the next drain try a claimed event again at once (its delivery failed); nothing when another owns it now. */
export async function releaseEvent(claimed: QueuedEvent): Promise<void> {
  await outbox.putIf(
    claimed.id,
    { ...claimed.record, claimed_until: 0 },
    is.equal('attempts', claimed.record.attempts),
  );
}

/** Removes a claimed event: delivered, or given up and counted. */
export async function removeEvent(claimed: QueuedEvent): Promise<void> {
  await outbox.removeIf(claimed.id, is.equal('attempts', claimed.record.attempts));
}
