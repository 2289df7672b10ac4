import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { keys } from '../db/keys';
import { putItem } from '../db/table';
import { logger } from '../log';
import { ScheduleVersionMark } from './items';
import { tickOnce, type TickInput } from './scheduler';
import { scheduleStore, type ScheduleEntity } from './store';
import { scheduleNow } from './timing';

/**
 * The on_new_version trigger (docs/schedules.md): an import's completion hands the new
 * version to each schedule that waits for its table, as a one-time Scheduler schedule named
 * after the schedule and the version (a second hand-over of the same version makes nothing);
 * the tick then claims the version with a mark that only one write can make, so each version
 * starts each schedule's build once, whatever is retried.
 */

const marks = new ItemType('SCHEDULE_VERSION_MARK', ScheduleVersionMark);

/** The tenant's schedules that wait for new versions of `tableId` and are not paused. */
async function waitingFor(tenantId: string, tableId: number): Promise<ScheduleEntity[]> {
  const schedules = await scheduleStore.list(tenantId);
  return schedules.filter(
    ({ data }) => !data.paused && data.trigger.type === 'on_new_version' && data.trigger.data_table_id === tableId,
  );
}

/**
 * Hands version `versionNumber` of data table `tableId`, just COMPLETED, to the schedules
 * waiting for it. A failure is logged, not thrown: the import itself has succeeded.
 */
export async function handOverNewVersion(tenantId: string, tableId: number, versionNumber: number): Promise<void> {
  try {
    const waiting = await waitingFor(tenantId, tableId);
    await Promise.all(
      waiting.map((schedule) =>
        tickOnce([tenantId, schedule.id, 'n', tableId, versionNumber], scheduleNow(), {
          tenant_id: tenantId,
          schedule_id: schedule.id,
          cause: 'on_new_version',
          data_table_id: tableId,
          data_version_number: versionNumber,
        }),
      ),
    );
  } catch (error) {
    logger.error('new data version not handed to its schedules', {
      tenantId,
      tableId,
      versionNumber,
      error: error as Error,
    });
  }
}

/** The tick's claim of the version it was handed: true for the first claim only. */
export function claimVersion(input: TickInput): (schedule: ScheduleEntity, runId: string) => Promise<boolean> {
  return async (schedule, runId) => {
    if (input.data_table_id === undefined || input.data_version_number === undefined) return false;
    const key = keys.scheduleVersionMark(input.tenant_id, schedule.id, input.data_table_id, input.data_version_number);
    const mark = marks.attributes(
      { run_id: runId, date: new Date(scheduleNow()).toISOString() },
      { kind: 'SCHEDULE_VERSION_MARK', tenant_id: input.tenant_id },
    );
    return putItem(key, mark, is.absent('pk'));
  };
}

/** handOverNewVersion for an import job's step, once the job is COMPLETED (its worker's onCompleted). */
export function handOverImported(step: {
  readonly job: { readonly tenant_id: string };
  readonly params: { readonly data_table_id: number; readonly version_number: number };
}): Promise<void> {
  return handOverNewVersion(step.job.tenant_id, step.params.data_table_id, step.params.version_number);
}
