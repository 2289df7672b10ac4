import { retentionNow } from '../retention/clock';
import type { ScheduleTrigger } from '../model/schedule';
import { eventBridgeCron, nextCronTime, parseCron } from './cron';
import type { ScheduleData } from './items';

/**
 * When a schedule fires, said once for the response (next_run_date), the EventBridge
 * Scheduler definition (scheduler.ts) and the twin's stand-in, which reads the definition.
 */

/** "Now" for schedules: the clock the retention sweep reads, which only the twin moves (tests). */
export function scheduleNow(): number {
  return retentionNow();
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

type RateTrigger = Extract<ScheduleTrigger, { type: 'rate' }>;

/** The interval of a rate, in milliseconds. */
export function rateMs(trigger: RateTrigger): number {
  return trigger.every * UNIT_MS[trigger.unit];
}

/** The Scheduler's `rate(...)`: the unit singular for one, as EventBridge requires. */
export function rateExpression(trigger: RateTrigger): string {
  return `rate(${trigger.every} ${trigger.every === 1 ? trigger.unit.slice(0, -1) : trigger.unit})`;
}

/**
 * When a rate schedule first fires: one interval after its anchor (its create, or the update
 * that set its rate), not at once as a Scheduler rate without a start date would.
 */
export function rateStart(data: ScheduleData): number | undefined {
  if (data.trigger.type !== 'rate' || data.rate_anchor === undefined) return undefined;
  return Date.parse(data.rate_anchor) + rateMs(data.trigger);
}

/** The next time a cron or rate schedule starts a build after `now`; undefined when paused or on new versions. */
export function nextRunAfter(data: ScheduleData, now: number = scheduleNow()): number | undefined {
  if (data.paused) return undefined;
  const { trigger } = data;
  if (trigger.type === 'cron') return nextCronTime(parseCron(trigger.expression), trigger.time_zone, now);
  const start = rateStart(data);
  if (trigger.type !== 'rate' || start === undefined) return undefined;
  if (start > now) return start;
  const interval = rateMs(trigger);
  return start + (Math.floor((now - start) / interval) + 1) * interval;
}

/** The Scheduler's expression and time zone of a cron or rate trigger. */
export function schedulerExpression(trigger: ScheduleTrigger): { expression: string; timeZone: string } | undefined {
  if (trigger.type === 'cron')
    return { expression: eventBridgeCron(parseCron(trigger.expression)), timeZone: trigger.time_zone };
  if (trigger.type === 'rate') return { expression: rateExpression(trigger), timeZone: 'UTC' };
  return undefined;
}
