import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import type { Entity } from '../db/entity-store';
import { dataTableStore } from '../data-tables/store';
import { datasetStore } from '../datasets/store';
import { validationError } from '../errors/app-error';
import { requireFeature } from '../features/store';
import type { Json } from '../http/merge-patch';
import type { ScheduleCreateRequest, ScheduleResponse } from '../model/schedule';
import { ScheduleUpdateRequest } from '../model/schedule';
import type { ScheduleData } from './items';
import { CronError, isTimeZone, parseCron } from './cron';
import { storedSchedules, scheduleStore, type ScheduleEntity } from './store';
import { nextRunAfter, scheduleNow } from './timing';

/**
 * The schedule entity, its declaration (store.ts) completed with its response and update.
 * A definition names a dataset that exists and, for on_new_version, a data table that does
 * (10-404); a rate's intervals count from the write that set it.
 */

/** The schedule as the API shows it. */
export function scheduleResponse(entity: Entity<ScheduleData>): ScheduleResponse {
  const { rate_anchor: _anchor, ...data } = entity.data;
  const next = nextRunAfter(entity.data, scheduleNow());
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    ...data,
    description: data.description ?? null,
    tags: data.tags ? [...data.tags] : null,
    next_run_date: next === undefined ? null : new Date(next).toISOString(),
    created_by: entity.created_by,
    created_date: entity.created_date,
    last_modified_by: entity.last_modified_by,
    last_modified_date: entity.last_modified_date,
  };
}

/** A cron must read and its time zone exist (10-1400 naming the field). */
function checkTrigger(trigger: ScheduleCreateRequest['trigger']): void {
  if (trigger.type !== 'cron') return;
  try {
    parseCron(trigger.expression);
  } catch (error) {
    if (error instanceof CronError) throw validationError({ 'trigger.expression': error.rule });
    throw error;
  }
  if (!isTimeZone(trigger.time_zone))
    throw validationError({ 'trigger.time_zone': 'must be an IANA time zone, e.g. Europe/Paris' });
}

/** A definition checked against what it names, with its rate anchor: kept while the rate is the same. */
export async function scheduleData(
  tenantId: string,
  definition: ScheduleCreateRequest,
  current?: ScheduleData,
): Promise<ScheduleData> {
  checkTrigger(definition.trigger);
  await datasetStore.get(tenantId, definition.dataset_id);
  if (definition.trigger.type === 'on_new_version')
    await dataTableStore.get(tenantId, definition.trigger.data_table_id);
  const { trigger } = definition;
  const sameRate =
    trigger.type === 'rate' &&
    current?.trigger.type === 'rate' &&
    current.trigger.every === trigger.every &&
    current.trigger.unit === trigger.unit &&
    current.rate_anchor !== undefined;
  const anchor =
    trigger.type !== 'rate' ? undefined : sameRate ? current.rate_anchor : new Date(scheduleNow()).toISOString();
  return {
    name: definition.name,
    description: definition.description ?? null,
    tags: definition.tags ?? null,
    dataset_id: definition.dataset_id,
    trigger,
    graph_version: definition.graph_version,
    overlap: definition.overlap,
    paused: definition.paused,
    ...(anchor === undefined ? {} : { rate_anchor: anchor }),
  };
}

export const schedules = storedSchedules.with({
  response: scheduleResponse,
  update: {
    document: ScheduleUpdateRequest,
    idMismatch: () => validationError({ id: 'must be the schedule_id of the path' }),
    documentOf: (current) => {
      const { rate_anchor: _anchor, ...data } = current.data;
      return JSON.parse(JSON.stringify({ id: current.id, lock_version: current.lock_version, ...data })) as Json;
    },
    next: async ({ tenantId }, current, document) => {
      const { id: _id, lock_version: _lock, created_by: _cb, created_date: _cd, ...rest } = document;
      const { last_modified_by: _mb, last_modified_date: _md, next_run_date: _next, ...definition } = rest;
      return { data: await scheduleData(tenantId, definition, current.data) };
    },
  },
});

/** Every schedule route needs the tenant's `schedules` toggle (10-1501). */
export function requireSchedules(caller: Principal): Promise<void> {
  return requireFeature(caller.tenantId, 'schedules');
}

/** Pauses or resumes a schedule read at `lockVersion` (10-1006 when it changed since). */
export async function setPaused(
  principal: Principal,
  scheduleId: number,
  lockVersion: number,
  paused: boolean,
): Promise<ScheduleEntity> {
  const current = await scheduleStore.get(principal.tenantId, scheduleId);
  const data = paused === current.data.paused ? current.data : { ...current.data, paused };
  return scheduleStore.replace(principal.tenantId, actorOf(principal), current, lockVersion, data);
}
