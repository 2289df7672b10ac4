import type { Entity } from '../db/entity-store';
import { defineEntity, entityListFields, listField } from '../http/define-entity';
import { ScheduleItemData, type ScheduleData } from './items';

export type { ScheduleData } from './items';
export type ScheduleEntity = Entity<ScheduleData>;

/**
 * Schedules as stored and listed, the light part of their declaration (the route table takes
 * its listQuery): names unique per tenant. entity.ts completes it with the response and the
 * update. A schedule does not keep its dataset from being deleted: its next tick records the
 * refusal and pauses it (fire.ts).
 */
export const storedSchedules = defineEntity({
  kind: 'SCHEDULE',
  label: 'schedule',
  data: ScheduleItemData,
  references: {},
  list: entityListFields({
    dataset_id: listField.integer((entity: ScheduleEntity) => entity.data.dataset_id),
    trigger_type: listField.text((entity: ScheduleEntity) => entity.data.trigger.type),
    graph_version: listField.text((entity: ScheduleEntity) => entity.data.graph_version),
    overlap: listField.text((entity: ScheduleEntity) => entity.data.overlap),
    paused: listField.boolean((entity: ScheduleEntity) => entity.data.paused),
  }),
});

export const scheduleStore = storedSchedules.store;
