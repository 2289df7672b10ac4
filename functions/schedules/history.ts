import { httpHandler } from '../../shared/http/handler';
import { historyPage } from '../../shared/schedules/history';
import { requireSchedules } from '../../shared/schedules/entity';
import { scheduleStore } from '../../shared/schedules/store';
import { scheduleRoutes } from './routes';

/** GET /schedules/{schedule_id}/runs: the schedule's history (shared/schedules/history.ts). */
export const handler = httpHandler(scheduleRoutes.history, async ({ params, query, principal }) => {
  await requireSchedules(principal);
  await scheduleStore.get(principal.tenantId, params.schedule_id);
  // Jobs' heartbeats are on the real clock, not the schedules' (which the twin moves).
  return { body: await historyPage(principal.tenantId, params.schedule_id, query, Date.now()) };
});
