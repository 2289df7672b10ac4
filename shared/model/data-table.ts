import * as z from 'zod';
import { ColumnSchema, DataRow, SchemaAlert, SchemaAnalysisDepth } from './columns';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  listEnvelope,
  integerText,
} from './common';
import { JobExecution, LaunchMode } from './job';
import { QualityReport } from './quality-rule';

/** Data tables, their versions, previews, samples and schema analyses (spec 2.6). */

export const DataTableIdParams = z.strictObject({ data_table_id: IdParameter });
export const VersionParams = z.strictObject({
  data_table_id: IdParameter,
  version_number: integerText('must be a positive integer', 1).describe('Version number of the data table'),
});

const dataVersionExist = z
  .boolean()
  .nullable()
  .optional()
  .describe('Read-only: whether any data version exists; accepted and ignored in requests');

export const DataTableCreateRequest = z
  .strictObject({
    name: Name,
    description: Description,
    tags: Tags,
    data_source_id: EntityId,
    data_version_exist: dataVersionExist,
  })
  .meta({ id: 'DataTableCreateRequest' });

export const DataTableUpdateRequest = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    name: Name,
    description: Description,
    tags: Tags,
    data_source_id: EntityId,
    data_version_exist: dataVersionExist,
    latest_data_version: z.unknown().optional(),
    connection_details: z.unknown().optional(),
    ...EchoedAuditFields,
  })
  .meta({ id: 'DataTableUpdateRequest' });

export const VersionMetadata = z
  .object({
    row_count: z.int(),
    column_count: z.int(),
    columns: z.array(ColumnSchema),
    source_files: z.int().describe('CSV files read'),
    bytes_read: z.int().describe('Bytes read from the source'),
    data_bytes: z.int().describe('Size of the stored Parquet data'),
    source_version: z.int().optional().describe('delta_sharing: the version of the shared Delta table that was read'),
  })
  .meta({ id: 'DataVersionMetadata' });

export const DataVersion = z
  .object({
    data_table_id: z.int(),
    version_number: z.int(),
    version_display_name: z.string().describe('Opaque display name such as V3; never parse or sort it'),
    execution: JobExecution,
    metadata: VersionMetadata.nullable(),
    quality: QualityReport.optional().describe(
      'The data-quality report of its import, when the table has rules and the data_quality feature is on (docs/data-quality.md)',
    ),
    expiration_date: z.iso.datetime().nullable(),
    ...AuditFields,
  })
  .meta({ id: 'DataVersion' });

export const ConnectionDetails = z
  .object({
    connection_id: z.int(),
    connection_name: z.string(),
    connection_type: z.string(),
    data_source_type: z.string(),
  })
  .meta({ id: 'ConnectionDetails' });

export const DataTableResponse = z
  .object({
    id: z.int(),
    lock_version: z.int(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()).nullable(),
    data_source_id: z.int().nullable(),
    data_version_exist: z.boolean(),
    latest_data_version: DataVersion.nullable(),
    connection_details: ConnectionDetails.nullable(),
    ...AuditFields,
  })
  .meta({ id: 'DataTable' });

export const DataTableList = listEnvelope(DataTableResponse, 'DataTableList');
export const DataVersionList = listEnvelope(DataVersion, 'DataVersionList');

const MAX_BATCH = 50;

export const BatchCreateRequest = z
  .strictObject({
    data_table_ids: z
      .array(EntityId)
      .min(1)
      .max(MAX_BATCH)
      .refine((ids) => new Set(ids).size === ids.length, { error: 'must not repeat an id' })
      .meta({ uniqueItems: true })
      .describe(`Tables to import a new version of, at most ${MAX_BATCH}`),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'DataVersionBatchCreateRequest' });

/** A refusal inside a batch: the code and message a single request would have answered. */
export const BatchItemError = z
  .object({ code: z.string(), status: z.int(), message: z.string() })
  .meta({ id: 'BatchItemError' });

export const JobLink = z
  .object({ job_id: z.string(), status_url: z.string().describe('Where the job status is read: the data version') })
  .meta({ id: 'JobLink' });

export const BatchCreateResult = z
  .object({
    data_table_id: z.int(),
    status: z.enum(['ACCEPTED', 'REJECTED']),
    data_version: DataVersion.optional(),
    job: JobLink.optional(),
    error: BatchItemError.optional(),
  })
  .meta({ id: 'DataVersionBatchCreateResult' });

export const BatchCreateResponse = z
  .object({ results: z.array(BatchCreateResult) })
  .meta({ id: 'DataVersionBatchCreateResponse' });

export const VersionReference = z
  .strictObject({ data_table_id: EntityId, version_number: EntityId })
  .meta({ id: 'DataVersionReference' });

export const BatchDeleteRequest = z
  .strictObject({
    data_versions: z
      .array(VersionReference)
      .min(1)
      .max(MAX_BATCH)
      .refine((refs) => new Set(refs.map((ref) => `${ref.data_table_id}/${ref.version_number}`)).size === refs.length, {
        error: 'must not repeat a version',
      })
      // Items are exactly {data_table_id, version_number}: JSON equality is the same test.
      .meta({ uniqueItems: true })
      .describe('Versions of one data table (20-1001 otherwise)'),
  })
  .meta({ id: 'DataVersionBatchDeleteRequest' });

export const BatchDeleteResult = z
  .object({
    data_table_id: z.int(),
    version_number: z.int(),
    status: z.enum(['DELETED', 'REJECTED']),
    error: BatchItemError.optional(),
  })
  .meta({ id: 'DataVersionBatchDeleteResult' });

export const BatchDeleteResponse = z
  .object({ results: z.array(BatchDeleteResult) })
  .meta({ id: 'DataVersionBatchDeleteResponse' });

export const PreviewResponse = z
  .object({
    data_table_id: z.int(),
    version_number: z.int(),
    row_count: z.int().describe('Rows in the whole version'),
    columns: z.array(ColumnSchema),
    rows: z.array(DataRow).describe('The first rows of the version'),
  })
  .meta({ id: 'DataVersionPreview' });

export const SampleQuery = z.strictObject({
  offset: integerText('must be an integer', 0).optional().default(0).describe('Sample rows to skip'),
  limit: integerText('must be an integer', 1, 1000)
    .optional()
    .default(100)
    .describe('Sample rows to return, at most 1000'),
});

export const SampleResponse = z
  .object({
    data_table_id: z.int(),
    version_number: z.int(),
    columns: z.array(ColumnSchema),
    offset: z.int(),
    limit: z.int(),
    total: z.int().describe('Rows in the sample'),
    rows: z.array(DataRow),
  })
  .meta({ id: 'DataVersionSample' });

export const SchemaAnalysisRequest = z
  .strictObject({ depth: SchemaAnalysisDepth.default('SHALLOW'), launch: LaunchMode.optional() })
  .meta({ id: 'SchemaAnalysisRequest' });

export const SchemaAnalysisStatus = z
  .object({
    execution: JobExecution,
    depth: SchemaAnalysisDepth.optional().describe('Depth of the last successful analysis; absent until one succeeded'),
    requested_depth: SchemaAnalysisDepth.describe('Depth the latest run was asked for'),
  })
  .meta({ id: 'SchemaAnalysisStatus' });

export const SchemaAlerts = z
  .object({ depth: SchemaAnalysisDepth, alerts: z.array(SchemaAlert) })
  .meta({ id: 'SchemaAlerts' });
