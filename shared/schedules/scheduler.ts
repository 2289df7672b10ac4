import { createHash } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import * as z from 'zod';
import { perStores } from '../aws/per-stores';
import { config } from '../config';
import { scheduleStore, type ScheduleEntity } from './store';
import { rateStart, schedulerExpression } from './timing';

/**
 * The schedules' EventBridge Scheduler side (docs/schedules.md): one Scheduler schedule per
 * cron or rate schedule, in the stage's group, invoking the tick function (functions/schedules/tick.ts)
 * through a role that may invoke nothing else; and one-time schedules that hand the tick a
 * new data version or a queued build. The stored schedule is the truth: every write of one
 * makes the Scheduler's match it as it reads now (syncSchedule), and the tick ignores and
 * corrects a Scheduler schedule that is behind it.
 */

export const scheduler = perStores(
  () => new SchedulerClient({}),
  (client) => client.destroy(),
);

/** What a Scheduler schedule hands the tick function. */
export const TickInput = z.strictObject({
  tenant_id: z.string().min(1),
  schedule_id: z.int().min(1),
  /** The schedule's lock_version the Scheduler schedule was written for: an older one is stale. */
  lock_version: z.int().min(0).optional(),
  cause: z.enum(['cron', 'rate', 'on_new_version', 'queued']),
  /** The time the Scheduler fired it for (its `<aws.scheduler.scheduled-time>`), whatever the delay. */
  scheduled_time: z.string().optional(),
  data_table_id: z.int().min(1).optional(),
  data_version_number: z.int().min(1).optional(),
  /** A queued tick: how many times it waited, the entry it continues, and what started it. */
  queued: z
    .strictObject({
      attempt: z.int().min(1),
      run_id: z.string(),
      first_cause: z.enum(['cron', 'rate', 'on_new_version']),
    })
    .optional(),
});
export type TickInput = z.infer<typeof TickInput>;

/** Scheduler names: 1 to 64 of [0-9A-Za-z-_.]; a longer or other one is hashed. */
const MAX_NAME = 64;

function schedulerName(prefix: string, parts: readonly (string | number)[]): string {
  const plain = `${prefix}.${parts.join('.')}`;
  if (plain.length <= MAX_NAME && /^[0-9A-Za-z._-]+$/.test(plain)) return plain;
  return `${prefix}.h.${createHash('sha256').update(parts.join('#')).digest('hex').slice(0, 40)}`;
}

/** The Scheduler schedule of a cron or rate schedule: `s.<tenant>.<id>`. */
export function recurringName(tenantId: string, scheduleId: number): string {
  return schedulerName('s', [tenantId, scheduleId]);
}

/** The Scheduler's context attribute that its Input receives as the time it fired for. */
export const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

function target(input: TickInput): NonNullable<CreateScheduleCommandInput['Target']> {
  const { targetArn, roleArn } = config.schedules;
  return {
    Arn: targetArn,
    RoleArn: roleArn,
    Input: JSON.stringify({ ...input, scheduled_time: SCHEDULED_TIME }),
    // The tick records what it could not start and succeeds, so retries are only for a tick that failed outright.
    RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
  };
}

async function put(definition: CreateScheduleCommandInput): Promise<void> {
  try {
    await scheduler().send(new UpdateScheduleCommand(definition));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    try {
      await scheduler().send(new CreateScheduleCommand(definition));
    } catch (created) {
      // Another write made it meanwhile: write this one over it.
      if (!(created instanceof ConflictException)) throw created;
      await scheduler().send(new UpdateScheduleCommand(definition));
    }
  }
}

/** Deletes a Scheduler schedule; one already gone is fine. */
export async function deleteSchedulerSchedule(name: string): Promise<void> {
  try {
    await scheduler().send(new DeleteScheduleCommand({ Name: name, GroupName: config.schedules.groupName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
}

/** The Scheduler definition of a stored cron or rate schedule; undefined for one on new versions. */
export function recurringDefinition(
  tenantId: string,
  schedule: ScheduleEntity,
): CreateScheduleCommandInput | undefined {
  const when = schedulerExpression(schedule.data.trigger);
  if (!when) return undefined;
  const cause = schedule.data.trigger.type === 'rate' ? 'rate' : 'cron';
  const start = rateStart(schedule.data);
  return {
    Name: recurringName(tenantId, schedule.id),
    GroupName: config.schedules.groupName,
    Description: `schedule ${schedule.id} of tenant ${tenantId}`,
    ScheduleExpression: when.expression,
    ScheduleExpressionTimezone: when.timeZone,
    ...(start === undefined ? {} : { StartDate: new Date(start) }),
    State: schedule.data.paused ? 'DISABLED' : 'ENABLED',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'NONE',
    Target: target({ tenant_id: tenantId, schedule_id: schedule.id, lock_version: schedule.lock_version, cause }),
  };
}

/**
 * Makes the Scheduler's schedule of `scheduleId` match the stored one as it reads now: written
 * (created or updated; DISABLED while paused) for a cron or rate, deleted for one on new
 * versions or one that is gone.
 */
export async function syncSchedule(tenantId: string, scheduleId: number): Promise<void> {
  const schedule = await scheduleStore.find(tenantId, scheduleId);
  const definition = schedule && recurringDefinition(tenantId, schedule);
  if (definition) await put(definition);
  else await deleteSchedulerSchedule(recurringName(tenantId, scheduleId));
}

/** The Scheduler's `at(...)` of an instant: UTC, to the second. */
function atExpression(instant: number): string {
  return `at(${new Date(instant).toISOString().slice(0, 19)})`;
}

/**
 * A one-time Scheduler schedule that hands `input` to the tick at `instant` and deletes itself.
 * Named by `key`: a second call with the same key finds it made (ConflictException) and
 * makes nothing, so a retried import's completion hands a version over once.
 */
export async function tickOnce(key: readonly (string | number)[], instant: number, input: TickInput): Promise<void> {
  try {
    await scheduler().send(
      new CreateScheduleCommand({
        Name: schedulerName('o', key),
        GroupName: config.schedules.groupName,
        Description: `one tick of schedule ${input.schedule_id} of tenant ${input.tenant_id} (${input.cause})`,
        ScheduleExpression: atExpression(instant),
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: target(input),
      }),
    );
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
}
