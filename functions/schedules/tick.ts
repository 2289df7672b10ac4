import { fireSchedule } from '../../shared/schedules/fire';
import { claimVersion } from '../../shared/schedules/new-version';
import { TickInput } from '../../shared/schedules/scheduler';
import { logger } from '../../shared/log';

/**
 * The function EventBridge Scheduler invokes (its schedules' one target): one tick of one
 * schedule (shared/schedules/fire.ts). What it could not start is recorded in the schedule's
 * history and the invocation succeeds, so the Scheduler retries only a tick that failed outright.
 */
export const handler = async (event: unknown): Promise<void> => {
  const input = TickInput.safeParse(event);
  if (!input.success) {
    logger.error('schedule tick with an input it cannot read', { issues: input.error.issues.length });
    return;
  }
  const options = input.data.cause === 'on_new_version' ? { claimVersion: claimVersion(input.data) } : {};
  const entry = await fireSchedule(input.data, options);
  logger.info('schedule tick', {
    tenantId: input.data.tenant_id,
    scheduleId: input.data.schedule_id,
    outcome: entry?.outcome ?? 'NONE',
  });
};
