import { GetScheduleCommand, ListSchedulesCommand, ResourceNotFoundException } from '@aws-sdk/client-scheduler';
import { config } from '../config';
import { logger } from '../log';
import { deleteSchedulerSchedule, scheduler, TickInput } from './scheduler';
import { scheduleStore } from './store';

/**
 * The reconciliation of the stage's Scheduler schedules with the stored ones, run by the daily
 * retention sweep (functions/retention/sweep.ts): a recurring Scheduler schedule whose
 * schedule is gone, or no longer a cron or rate (a delete or an update whose Scheduler call
 * failed), is deleted. A survivor would only tick into nothing (the tick ignores and deletes
 * it too); this catches the ones that never tick again, such as a DISABLED one. One-time
 * schedules delete themselves once they fire.
 */
export async function reconcileSchedules(): Promise<{ readonly deleted: readonly string[] }> {
  const { groupName } = config.schedules;
  const deleted: string[] = [];
  let token: string | undefined;
  do {
    const page = await scheduler().send(
      new ListSchedulesCommand({ GroupName: groupName, NamePrefix: 's.', NextToken: token }),
    );
    for (const summary of page.Schedules ?? []) {
      if (summary.Name === undefined) continue;
      if (await isSurvivor(groupName, summary.Name)) {
        await deleteSchedulerSchedule(summary.Name);
        deleted.push(summary.Name);
      }
    }
    token = page.NextToken;
  } while (token !== undefined);
  if (deleted.length > 0) logger.info('scheduler schedules of deleted schedules removed', { count: deleted.length });
  return { deleted };
}

/** Whether the Scheduler schedule stands for no stored cron or rate schedule (one it cannot read counts as none). */
async function isSurvivor(groupName: string, name: string): Promise<boolean> {
  let input: unknown;
  try {
    const schedule = await scheduler().send(new GetScheduleCommand({ Name: name, GroupName: groupName }));
    input = JSON.parse(schedule.Target?.Input ?? '');
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    if (error instanceof SyntaxError) return true;
    throw error;
  }
  const tick = TickInput.safeParse(input);
  if (!tick.success) return true;
  const stored = await scheduleStore.find(tick.data.tenant_id, tick.data.schedule_id);
  return stored === undefined || stored.data.trigger.type === 'on_new_version';
}
