/**
 * The valid requests of the direct and multi-part export operations (docs/exports.md), apart
 * from test/contract/corpus.ts to keep each module small: exports of the fixture table's
 * version to the twin's S3. The export to a target names a target no tenant has (30-6002
 * after the request's own checks). The direct export names a bucket the store does not have
 * (30-1108 after every other check): s3rver keeps objects as files, and the corpus's longest
 * keys are longer than a file name may be. The status reads name a job id no tenant has
 * (10-404 is their documented answer); test/integration/exports reads real ones.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** What the export requests aim at: the fixture table's version and the twin's S3. */
export interface ExportFixtures {
  readonly endpoint: string;
  /** "<bucket>/<folder>/" of the twin's S3. */
  readonly folder: string;
  readonly tableId: number;
  readonly versionNumber: number;
}

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface ExportBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
}

/** An export to the fixture target would claim it, and the target operations of the corpus would meet 30-6005. */
const NO_TARGET = 999_999;

const UNKNOWN_JOB = { job_id: 'direct-export-00000000-0000-4000-8000-000000000000' };

export function exportBases(f: ExportFixtures): Partial<Readonly<Record<OperationId, ExportBase>>> {
  const bucket = f.folder.split('/')[0]!;
  const missingBucket = `${bucket}-missing`;
  const source = { source_type: 'datatable', source_id: f.tableId, source_version: f.versionNumber };
  const enums = { source_type: ['dataset', 'DATATABLE'], format: ['csv', 'PARQUET'] };
  return {
    createExport: { body: { ...source, target_id: NO_TARGET, columns: ['id'], cast_boolean_to_integer: true }, enums },
    getExport: { params: { export_id: '999999' } },
    listExports: { query: { limit: '5' } },
    startDirectExport: {
      body: {
        ...source,
        bucket: missingBucket,
        key: 'contract/out.parquet',
        endpoint: f.endpoint,
        access_key: 'S3RVER',
        secret_key: 'S3RVER',
        total_files: 2,
        columns: ['id'],
      },
      enums,
    },
    getDirectExport: { params: UNKNOWN_JOB },
    cancelDirectExport: { params: UNKNOWN_JOB },
    cancelExport: { params: { export_id: '999999' } },
    startMultiPartExport: {
      body: { ...source, parts_urls: [`${f.endpoint}/${bucket}/contract/part?partNumber=1&uploadId=contract`] },
      enums,
    },
    getMultiPartExport: { params: UNKNOWN_JOB },
    cancelMultiPartExport: { params: UNKNOWN_JOB },
  };
}
