import { keys } from '../../shared/db/keys';
import { queryItems, deleteItem } from '../../shared/db/table';
import { httpHandler } from '../../shared/http/handler';
import { requireSchedules } from '../../shared/schedules/entity';
import { syncSchedule } from '../../shared/schedules/scheduler';
import { scheduleStore } from '../../shared/schedules/store';
import { scheduleRoutes } from './routes';

/**
 * Deletes a schedule, then its Scheduler schedule and its children (history, version marks).
 * A Scheduler schedule left by a failure here ticks into nothing and is deleted by that tick
 * or by the retention sweep's reconciliation (shared/schedules/reconcile.ts).
 */
export const handler = httpHandler(scheduleRoutes.delete, async ({ params, query, principal }) => {
  await requireSchedules(principal);
  const { tenantId } = principal;
  await scheduleStore.delete(tenantId, params.schedule_id, { expectedLockVersion: query.lock_version });
  await syncSchedule(tenantId, params.schedule_id);
  const children = await queryItems(keys.children(tenantId, 'SCHEDULE', params.schedule_id));
  await Promise.all(children.map((item) => deleteItem({ pk: String(item.pk), sk: String(item.sk) })));
  return { status: 204, body: undefined };
});
