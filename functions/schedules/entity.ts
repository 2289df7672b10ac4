/**
 * The list, get, update and merge handlers of the declared entity (shared/schedules/entity.ts),
 * one export each. An update or merge then makes the Scheduler's schedule follow.
 */
import { getHandler, listHandler } from '../../shared/http/entity-handlers';
import { httpHandler } from '../../shared/http/handler';
import { requireSchedules, schedules } from '../../shared/schedules/entity';
import { syncSchedule } from '../../shared/schedules/scheduler';
import { scheduleRoutes } from './routes';

const before = { before: requireSchedules };

export const list = listHandler(scheduleRoutes.list, schedules, before);
export const get = getHandler(scheduleRoutes.get, schedules, before);

export const update = httpHandler(scheduleRoutes.update, async ({ params, body, principal }) => {
  await requireSchedules(principal);
  const updated = await schedules.update(principal, params.schedule_id, body);
  await syncSchedule(principal.tenantId, params.schedule_id);
  return { body: updated };
});

export const merge = httpHandler(scheduleRoutes.merge, async ({ params, body, principal }) => {
  await requireSchedules(principal);
  const updated = await schedules.merge(principal, params.schedule_id, body);
  await syncSchedule(principal.tenantId, params.schedule_id);
  return { body: updated };
});
