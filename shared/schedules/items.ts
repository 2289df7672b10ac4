import * as z from 'zod';
import { ScheduleCreateRequest, ScheduleRun } from '../model/schedule';

/**
 * A schedule as stored: its definition as a create takes it, and when a rate schedule's
 * intervals are counted from (the create or the update that set its rate; never shown).
 */
export const ScheduleItemData = ScheduleCreateRequest.extend({
  rate_anchor: z.iso.datetime().optional(),
});
export type ScheduleData = z.output<typeof ScheduleItemData>;

/**
 * A history entry as stored: as shown (its run_id is its key), and whether its build releases
 * the version it built (a released schedule's: docs/schedules.md), which only that release settles
 * as SUCCEEDED. The response's schema leaves the flag out.
 */
export const StoredScheduleRun = ScheduleRun.extend({ release: z.boolean().optional() });
export type StoredScheduleRun = z.output<typeof StoredScheduleRun>;

/** The mark a handled data version leaves (new-version.ts): when, and the entry it wrote. */
export const ScheduleVersionMark = z.object({ run_id: z.string(), date: z.iso.datetime() });
