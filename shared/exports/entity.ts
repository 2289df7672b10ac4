import type { Entity } from '../db/entity-store';
import { defineEntity, listField } from '../http/define-entity';
import { EXPORT_STORE, exportExecution, exportStore, type ExportData, type ExportMirrors } from './target-exports';
import { exportResponse } from './target-response';

type ExportEntity = Entity<ExportData, ExportMirrors>;

/**
 * The export entity (to a target), declared once on its store (target-exports.ts). Exports are
 * created by their start routes and never updated; each is shown with its job's execution,
 * which fails a job gone silent as it is read (exportExecution). Its status is the stored one.
 */
export const targetExports = defineEntity(
  {
    ...EXPORT_STORE,
    responses: (tenantId, entities) =>
      Promise.all(entities.map(async (entity) => exportResponse(entity, await exportExecution(tenantId, entity)))),
    list: {
      id: listField.integer((entity: ExportEntity) => entity.id),
      target_id: listField.integer((entity: ExportEntity) => entity.data.target_id),
      source_type: listField.text((entity: ExportEntity) => entity.data.shape.source_type),
      source_id: listField.integer((entity: ExportEntity) => entity.data.shape.source_id),
      source_version: listField.integer((entity: ExportEntity) => entity.data.shape.source_version),
      status: listField.text((entity: ExportEntity) => entity.mirrors.execution?.status ?? null),
      created_date: listField.datetime((entity: ExportEntity) => entity.created_date),
      last_modified_date: listField.datetime((entity: ExportEntity) => entity.last_modified_date),
    },
  },
  exportStore,
);
