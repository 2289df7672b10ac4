import { auditFieldsOf, type Entity } from '../db/entity-store';
import { KIND_FIELD_NAMES, type DataSourceResponse } from '../model/data-source';
import type { DataSourceData } from './items';

/** The kind's own fields of a stored data source; the other kinds' (null) fields stay out. */
export function kindFieldsOf(data: DataSourceData): Record<string, string | number | null> {
  return Object.fromEntries(KIND_FIELD_NAMES[data.type].map((field) => [field, data[field] ?? null]));
}

export function dataSourceResponse(entity: Entity<DataSourceData>): DataSourceResponse {
  const { data } = entity;
  return {
    id: entity.id,
    lock_version: entity.lock_version,
    type: data.type,
    name: data.name,
    description: data.description,
    tags: data.tags ? [...data.tags] : null,
    connection_id: data.connection_id,
    ...kindFieldsOf(data),
    ...auditFieldsOf(entity),
  } as DataSourceResponse;
}
