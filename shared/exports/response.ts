import type { JobExecution } from '../model/job';
import type { DirectExportStatus, MultiPartExportStatus } from '../model/export';
import type { ExportShape } from './jobs';
import type { StoredDirectExport, StoredMultiPartExport } from './items';

/** The job's status as it is: spec 2.9's four, and ABORTED for a cancelled job (error_code 10-444). */
function statusOf(execution: JobExecution): DirectExportStatus['status']['status'] {
  return execution.status;
}

function sourceOf(shape: ExportShape) {
  return {
    source_type: shape.source_type,
    source_id: shape.source_id,
    source_version: shape.source_version,
    use_sample: shape.use_sample,
    format: shape.format,
  };
}

/** A failure as a person reads it: the technical cause when there is one, else the message. */
function causeOf(execution: JobExecution): string | undefined {
  return execution.error ? (execution.error.cause ?? execution.error.message) : undefined;
}

export function directExportStatus(item: StoredDirectExport, execution: JobExecution): DirectExportStatus {
  const cause = causeOf(execution);
  return {
    job_id: item.job_id,
    bucket: item.bucket,
    key: item.key,
    total_files: item.total_files,
    files: item.files ?? [],
    ...sourceOf(item.shape),
    status: {
      status: statusOf(execution),
      ...(execution.error ? { error_code: execution.error.code } : {}),
      ...(cause ? { error_cause: cause } : {}),
    },
    created_date: item.created_date,
  };
}

export function multiPartExportStatus(item: StoredMultiPartExport, execution: JobExecution): MultiPartExportStatus {
  const { error } = execution;
  return {
    job_id: item.job_id,
    parts: item.parts,
    ...sourceOf(item.shape),
    status: statusOf(execution),
    ...(error
      ? { error: `${error.code}: ${error.message}${error.cause ? ` (${error.cause})` : ''}`, error_code: error.code }
      : {}),
    result: item.result ?? [],
    created_date: item.created_date,
  };
}
