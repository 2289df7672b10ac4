import { auditFieldsOf, type Entity } from '../db/entity-store';
import type { ExportResponse } from '../model/export';
import type { JobExecution } from '../model/job';
import type { ExportData, ExportMirrors } from './target-exports';

/** An export as GET /exports/{id} and the list show it (spec 2.9). */
export function exportResponse(entity: Entity<ExportData, ExportMirrors>, execution: JobExecution): ExportResponse {
  const { data, mirrors } = entity;
  const { shape } = data;
  return {
    id: entity.id,
    job_id: data.name,
    target_id: data.target_id,
    target_name: data.target_name,
    connection_id: data.connection_id,
    connection_name: data.connection_name,
    ...(mirrors.data_target_details ? { data_target_details: mirrors.data_target_details } : {}),
    ...(mirrors.exported_table_name ? { exported_table_name: mirrors.exported_table_name } : {}),
    source_type: shape.source_type,
    source_id: shape.source_id,
    source_version: shape.source_version,
    source_name: data.source_name,
    use_sample: shape.use_sample,
    validate_to_release: shape.validate_release,
    cast_boolean_to_integer: shape.cast_boolean_to_integer,
    columns: shape.columns,
    format: shape.format,
    execution,
    ...auditFieldsOf(entity),
  };
}
