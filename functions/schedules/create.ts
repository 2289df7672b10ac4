import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { requireSchedules, scheduleData, scheduleResponse } from '../../shared/schedules/entity';
import { syncSchedule } from '../../shared/schedules/scheduler';
import { scheduleStore } from '../../shared/schedules/store';
import { logger } from '../../shared/log';
import { scheduleRoutes } from './routes';

/**
 * Creates a schedule, then its Scheduler schedule. A schedule whose Scheduler schedule could
 * not be made is deleted again and the failure answered: no schedule stands that would never tick.
 */
export const handler = httpHandler(scheduleRoutes.create, async ({ body, principal, idempotencyKey }) => {
  await requireSchedules(principal);
  const { tenantId } = principal;
  const data = await scheduleData(tenantId, body);
  const { entity, replayed } = await scheduleStore.create(tenantId, actorOf(principal), () => data, {
    ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, fingerprint: fingerprint(body) } }),
  });
  try {
    await syncSchedule(tenantId, entity.id);
  } catch (error) {
    logger.error('schedule not created in the scheduler', { scheduleId: entity.id, error: error as Error });
    if (!replayed) await scheduleStore.delete(tenantId, entity.id);
    throw error;
  }
  return {
    status: 201,
    body: scheduleResponse(entity),
    headers: {
      location: `${API_BASE_PATH}/schedules/${entity.id}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});
