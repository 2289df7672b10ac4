import { fireSchedule } from '../../shared/schedules/fire';
import { claimVersion } from '../../shared/schedules/new-version';
import { TickInput } from '../../shared/schedules/scheduler';
import { isAppError } from '../../shared/errors/app-error';
import { logger } from '../../shared/log';
import type { ScheduleRun } from '../../shared/model/schedule';
import { recordScheduleTick, type ScheduleTickOutcome } from '../../shared/observability/metrics';

/**
 * The function EventBridge Scheduler invokes (its schedules' one target): one tick of one
 * schedule (shared/schedules/fire.ts). What it could not start is recorded in the schedule's
 * history and the invocation succeeds, so the Scheduler retries only a tick that failed outright.
 * Each tick writes its outcome's metric (ScheduleTicks, docs/operations.md).
 */
export const handler = async (event: unknown): Promise<void> => {
  const input = TickInput.safeParse(event);
  if (!input.success) {
    logger.error('schedule tick with an input it cannot read', { issues: input.error.issues.length });
    return;
  }
  const options = input.data.cause === 'on_new_version' ? { claimVersion: claimVersion(input.data) } : {};
  const tick = { tenantId: input.data.tenant_id, scheduleId: input.data.schedule_id, cause: input.data.cause };
  let entry: ScheduleRun | undefined;
  try {
    entry = await fireSchedule(input.data, options);
  } catch (error) {
    recordScheduleTick({ ...tick, outcome: 'failed', code: isAppError(error) ? error.code : null });
    throw error;
  }
  recordScheduleTick({ ...tick, ...tickOutcome(entry), jobId: entry?.job_id });
  logger.info('schedule tick', {
    tenantId: input.data.tenant_id,
    scheduleId: input.data.schedule_id,
    outcome: entry?.outcome ?? 'NONE',
  });
};

/** A tick's metric outcome from the history entry it wrote (none: a tick not acted on). */
function tickOutcome(entry: ScheduleRun | undefined): ScheduleTickOutcome {
  switch (entry?.outcome) {
    case undefined:
      return { outcome: 'ignored' };
    case 'REFUSED':
      return { outcome: 'refused', code: entry.code ?? '10-500' };
    case 'QUEUED':
      return { outcome: 'queued', code: entry.code };
    case 'SKIPPED':
      return { outcome: 'skipped', code: entry.code };
    default:
      return { outcome: 'started' };
  }
}
