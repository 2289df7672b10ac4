import { AppError } from '../errors/app-error';
import { fingerprint } from '../http/fingerprint';
import type { IdempotentRequest } from '../db/idempotent-create';
import type { ExportFormat, ExportSourceType } from '../model/export';
import type { ExportShape } from './jobs';
import { exportColumns, exportSourceOf, type ExportSource } from './source';

/** The source and shaping fields of an export request, as every kind of export has them. */
export interface ExportShapeRequest {
  readonly source_type: ExportSourceType;
  readonly source_id: number;
  readonly source_version: number;
  readonly use_sample: boolean;
  readonly validate_release: boolean;
  readonly columns?: readonly string[] | undefined;
  readonly cast_boolean_to_integer: boolean;
  readonly format: ExportFormat;
}

/**
 * The export's shape, once its source is known to be exportable (exportSourceOf) and its
 * columns to exist in the source's stored schema (20-1031): checked before any job starts.
 */
export async function checkedExport(
  tenantId: string,
  request: ExportShapeRequest,
): Promise<{ readonly shape: ExportShape; readonly source: ExportSource }> {
  const source = await exportSourceOf(tenantId, request);
  const shape: ExportShape = {
    source_type: request.source_type,
    source_id: request.source_id,
    source_version: request.source_version,
    use_sample: request.use_sample,
    validate_release: request.validate_release,
    columns: exportColumns(source, request.columns),
    cast_boolean_to_integer: request.cast_boolean_to_integer,
    format: request.format,
  };
  return { shape, source };
}

/**
 * The Idempotency-Key record of an export start. Its fingerprint leaves the credentials out:
 * a digest of a secret is not stored, and a retry with the same key names the same export.
 */
export function idempotentStart(
  idempotencyKey: string | undefined,
  request: object,
  secretFields: readonly string[],
): IdempotentRequest | undefined {
  if (idempotencyKey === undefined) return undefined;
  const withoutSecrets = Object.fromEntries(Object.entries(request).filter(([field]) => !secretFields.includes(field)));
  return { key: idempotencyKey, fingerprint: fingerprint(withoutSecrets) };
}

/** A retry that arrives while the first request with its Idempotency-Key is still running. */
export function startInProgress(): AppError {
  return new AppError('10-409', { params: ['export', 'Idempotency-Key'] });
}
