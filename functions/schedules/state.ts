/** Pause and resume (one export each): the stored flag, then the Scheduler's schedule disabled or enabled. */
import { httpHandler } from '../../shared/http/handler';
import { requireSchedules, scheduleResponse, setPaused } from '../../shared/schedules/entity';
import { syncSchedule } from '../../shared/schedules/scheduler';
import { scheduleRoutes } from './routes';

function stateHandler(route: typeof scheduleRoutes.pause | typeof scheduleRoutes.resume, paused: boolean) {
  return httpHandler(route, async ({ params, body, principal }) => {
    await requireSchedules(principal);
    const schedule = await setPaused(principal, params.schedule_id, body.lock_version, paused);
    await syncSchedule(principal.tenantId, params.schedule_id);
    return { body: scheduleResponse(schedule) };
  });
}

export const pause = stateHandler(scheduleRoutes.pause, true);
export const resume = stateHandler(scheduleRoutes.resume, false);
