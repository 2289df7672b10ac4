import { auditFieldsOf } from '../db/entity-store';
import type { JobExecution } from '../model/job';
import type { TransferResponse } from '../model/transfer';
import type { TransferEntity } from './store';

/** A transfer as GET /transfers/{id} and the list show it. */
export function transferResponse(entity: TransferEntity, execution: JobExecution): TransferResponse {
  const { data } = entity;
  return {
    id: entity.id,
    job_id: data.name,
    target_id: data.target_id,
    target_name: data.target_name,
    connection_id: data.connection_id,
    connection_name: data.connection_name,
    source_type: data.source_type,
    source_id: data.source_id,
    source_version: data.source_version,
    source_name: data.source_name,
    project_path: data.project_path,
    table_path: data.table_path,
    columns: data.columns,
    rows_total: data.rows_total,
    rows_sent: entity.mirrors.rows_sent ?? 0,
    rows_accepted: entity.mirrors.rows_accepted ?? 0,
    execution,
    ...auditFieldsOf(entity),
  };
}
