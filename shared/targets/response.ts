import { auditFieldsOf, type Entity } from '../db/entity-store';
import { TARGET_KIND_FIELD_NAMES, type TargetResponse } from '../model/target';
import type { TargetData } from './items';

export function targetResponse(entity: Entity<TargetData>): TargetResponse {
  const { data } = entity;
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    type: data.type,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    connection_id: data.connection_id,
    // The kind's own fields; the other kinds' (null) fields stay out.
    ...Object.fromEntries(TARGET_KIND_FIELD_NAMES[data.type].map((field) => [field, data[field]])),
    ...auditFieldsOf(entity),
  } as TargetResponse;
}
