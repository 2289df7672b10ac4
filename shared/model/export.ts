import * as z from 'zod';
import { AuditFields, EntityId, IdParameter, listEnvelope } from './common';
import { AccessKeyId } from './connection-auth';
import { visibleAscii } from './text-rules';
import { JobExecution, LaunchMode } from './job';
import { MAX_OBJECT_KEY_BYTES, storableKey } from './object-key';

/**
 * Exports (spec 2.9): what leaves the service. The source fields are shared by every kind of
 * export; the direct export names an S3-compatible store and its credentials, the multi-part
 * export the pre-signed part URLs of an upload the caller created.
 */

export const EXPORT_SOURCE_TYPES = ['dataset', 'datatable'] as const;
export const ExportSourceType = z
  .enum(EXPORT_SOURCE_TYPES)
  .describe('dataset (a dataset version) or datatable (a data table version)');
export type ExportSourceType = z.infer<typeof ExportSourceType>;

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export const ExportFormat = z
  .enum(EXPORT_FORMATS)
  .describe('File format written: parquet (default) or csv (header row, comma, RFC 4180 quoting, UTF-8)');
export type ExportFormat = z.infer<typeof ExportFormat>;

/** Most columns a request may name: far beyond any table the service imports. */
export const MAX_EXPORT_COLUMNS = 2000;
/** Most files a direct export may be split into. */
export const MAX_TOTAL_FILES = 1000;
/** S3's bound on the parts of one multipart upload. */
export const MAX_PARTS = 10_000;

const Columns = z
  .array(z.string().min(1).max(255))
  .min(1)
  .max(MAX_EXPORT_COLUMNS)
  .refine((columns) => new Set(columns).size === columns.length, { error: 'must not repeat a column' })
  .meta({ uniqueItems: true })
  .describe('Columns to export, in this order; every column when omitted. An unknown column is 20-1031');

const sourceFields = {
  source_type: ExportSourceType,
  source_id: EntityId.describe('Id of the data table or dataset'),
  source_version: EntityId.describe('Version number of the data table or dataset'),
  use_sample: z.boolean().default(false).describe('Export the sample instead of every row'),
  columns: Columns.optional(),
  cast_boolean_to_integer: z.boolean().default(false).describe('Write booleans as integers: true as 1, false as 0'),
  format: ExportFormat.default('parquet'),
};

/** A key or token that is signed into or sent in a request header: printable ASCII, or the request could not be made. */
const secretText = (max: number) => visibleAscii(z.string().min(1).max(max));

export const DirectExportRequest = z
  .strictObject({
    ...sourceFields,
    validate_release: z.boolean().default(true).describe('For a dataset source: refuse a draft version (20-1016)'),
    bucket: z.string().min(3).max(63).describe('Bucket of the destination store'),
    key: storableKey(z.string().min(1).max(MAX_OBJECT_KEY_BYTES), { bucketFirst: false })
      .refine((key) => !key.startsWith('/') && !key.endsWith('/'), { error: 'must not start or end with /' })
      .describe(
        'Object key; with total_files > 1 the files are <key stem>-<n>-of-<total><extension> (docs/exports.md)',
      ),
    endpoint: z
      .string()
      .min(1)
      .max(2048)
      .describe('https URL of the S3-compatible endpoint; it passes the outbound guard (10-1008, 30-1130)'),
    access_key: AccessKeyId.describe('Access key id'),
    secret_key: secretText(1024).describe(
      'Secret access key: encrypted at rest, never returned or logged, deleted when the job ends',
    ),
    session_token: visibleAscii(z.string().max(4096))
      .optional()
      .describe('Session token of temporary credentials; omit or send "" for long-term keys'),
    total_files: z
      .int()
      .min(1)
      .max(MAX_TOTAL_FILES)
      .default(1)
      .describe('Number of files the output is split into (rows spread evenly)'),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'DirectExportRequest' });
export type DirectExportRequest = z.infer<typeof DirectExportRequest>;

export const MultiPartExportRequest = z
  .strictObject({
    ...sourceFields,
    validate_release: z.boolean().default(true).describe('For a dataset source: refuse a draft version (20-1016)'),
    parts_urls: z
      .array(z.string().min(1).max(8192))
      .min(1)
      .max(MAX_PARTS)
      .describe(
        'Pre-signed PUT URLs of parts 1..n of a multipart upload the caller created, in part order; each passes the outbound guard',
      ),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'MultiPartExportRequest' });
export type MultiPartExportRequest = z.infer<typeof MultiPartExportRequest>;

export const ExportJobStarted = z.object({ job_id: z.string() }).meta({ id: 'ExportJobStarted' });

export const JobIdParams = z.strictObject({
  job_id: z
    .string()
    .regex(/^[a-z0-9-]{1,128}$/, { error: 'must be a job id: lowercase letters, digits and hyphens' })
    .describe('Job id returned by the start'),
});

/** Spec 2.9 gives the first four as examples; ABORTED is a cancelled job's (docs/decisions.md, "Cancelling a job"). */
export const DIRECT_EXPORT_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'ABORTED'] as const;

const sourceEcho = {
  source_type: ExportSourceType,
  source_id: z.int(),
  source_version: z.int(),
  use_sample: z.boolean(),
  format: ExportFormat,
};

export const DirectExportStatus = z
  .object({
    job_id: z.string(),
    bucket: z.string(),
    key: z.string(),
    total_files: z.int(),
    files: z.array(z.string()).describe('Keys of the objects written, once COMPLETED'),
    ...sourceEcho,
    status: z
      .object({
        status: z.enum(DIRECT_EXPORT_STATUSES),
        error_code: z.string().optional().describe('Catalogue code of the failure'),
        error_cause: z.string().optional().describe('What went wrong, for a person'),
      })
      .meta({ id: 'DirectExportJobState' }),
    created_date: z.iso.datetime(),
  })
  .meta({ id: 'DirectExportStatus' });
export type DirectExportStatus = z.infer<typeof DirectExportStatus>;

export const UploadedPart = z.object({ e_tag: z.string(), part_number: z.int().min(1) }).meta({ id: 'UploadedPart' });
export type UploadedPart = z.infer<typeof UploadedPart>;

export const MultiPartExportStatus = z
  .object({
    job_id: z.string(),
    parts: z.int().describe('Number of parts asked'),
    ...sourceEcho,
    status: z.enum(DIRECT_EXPORT_STATUSES),
    error: z.string().optional().describe('<code>: <message>, when FAILED'),
    error_code: z.string().optional().describe('Catalogue code of the failure'),
    result: z
      .array(UploadedPart)
      .describe('ETag of every part, in part order, once COMPLETED: what CompleteMultipartUpload takes'),
    created_date: z.iso.datetime(),
  })
  .meta({ id: 'MultiPartExportStatus' });
export type MultiPartExportStatus = z.infer<typeof MultiPartExportStatus>;

/** POST /exports: a version to a target (spec 2.9). The target names where the data goes. */
export const CreateExportRequest = z
  .strictObject({
    target_id: EntityId.describe('The target to write to; it must be able to receive exports (10-1042)'),
    ...sourceFields,
    validate_to_release: z.boolean().default(true).describe('For a dataset source: refuse a draft version (20-1016)'),
    launch: LaunchMode.optional(),
  })
  .meta({ id: 'CreateExportRequest' });
export type CreateExportRequest = z.infer<typeof CreateExportRequest>;

export const ExportCreated = z.object({ export_id: EntityId }).meta({ id: 'ExportCreated' });

export const ExportIdParams = z.strictObject({ export_id: IdParameter });

export const ExportResponse = z
  .object({
    id: EntityId,
    job_id: z.string(),
    target_id: EntityId,
    target_name: z.string().describe('The target as it was named when the export was created'),
    connection_id: EntityId,
    connection_name: z.string(),
    data_target_details: z
      .record(z.string(), z.string())
      .optional()
      .describe('Where the data went, once COMPLETED: bucket, key and path for a bucket target'),
    exported_table_name: z.string().optional().describe('The object (bucket target) or table written, once COMPLETED'),
    source_type: ExportSourceType,
    source_id: EntityId,
    source_version: EntityId,
    source_name: z.string(),
    use_sample: z.boolean(),
    validate_to_release: z.boolean(),
    cast_boolean_to_integer: z.boolean(),
    columns: z.array(z.string()).nullable().describe('The columns written; null for all of them'),
    format: ExportFormat,
    execution: JobExecution,
    ...AuditFields,
  })
  .meta({ id: 'Export' });
export type ExportResponse = z.infer<typeof ExportResponse>;

export const ExportList = listEnvelope(ExportResponse, 'ExportList');
