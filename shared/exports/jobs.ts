import * as z from 'zod';
import { defineJob, ENGINE_WORKER } from '../jobs/define-job';
import { ExportFormat, ExportSourceType } from '../model/export';

/**
 * The export jobs. Their parameters carry no credential: the destination's secrets (a direct
 * export's keys, a multi-part export's pre-signed URLs) stay sealed in the job's secret item
 * (shared/exports/store.ts), so they never appear in a state machine's input or history.
 */

/** What every export reads and how it shapes the rows: resolved and checked when the job starts. */
export const ExportShape = z.strictObject({
  source_type: ExportSourceType,
  source_id: z.int().min(1),
  source_version: z.int().min(1),
  use_sample: z.boolean(),
  /** For a dataset source: a draft version is refused (20-1016), at run time as at the request. */
  validate_release: z.boolean(),
  /** The columns to write, in order; null for every column. */
  columns: z.array(z.string()).nullable(),
  cast_boolean_to_integer: z.boolean(),
  format: ExportFormat,
});
export type ExportShape = z.infer<typeof ExportShape>;

/** POST /exports: the output to a target's destination, named by its path and dynamic parameters. */
export const targetExportJob = defineJob({
  name: 'export',
  description:
    "Export to a target: the worker reads the source Parquet with DuckDB, writes the file to the target's destination through its connection's writer, and releases its claim on the target when it ends.",
  params: z.strictObject({ export_id: z.int().min(1), shape: ExportShape }),
  worker: {
    name: 'export-to-target',
    handler: 'jobs/export-to-target',
    ...ENGINE_WORKER,
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'read' },
  },
});

/** POST /exports/direct: the output, split into total_files, to the store named in the request. */
export const directExportJob = defineJob({
  name: 'direct-export',
  description:
    'Direct export to an S3-compatible store named in the request: the worker reads the source Parquet with DuckDB, writes the files and completes their uploads only when all are written.',
  params: z.strictObject({ shape: ExportShape, bucket: z.string(), key: z.string(), total_files: z.int().min(1) }),
  worker: {
    name: 'export-direct',
    handler: 'jobs/export-direct',
    ...ENGINE_WORKER,
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'read' },
  },
});

/** POST /exports/multi-part: the output as one file, cut into the caller's parts and PUT to their URLs. */
export const multiPartExportJob = defineJob({
  name: 'multi-part-export',
  description:
    "Multi-part export: the worker reads the source Parquet with DuckDB and PUTs the output to the caller's pre-signed part URLs, recording every part's ETag: CSV written part by part, each sent while the next is written; Parquet (or CSV too small for even parts) as one file cut into the parts.",
  params: z.strictObject({ shape: ExportShape, parts: z.int().min(1) }),
  worker: {
    name: 'export-multi-part',
    handler: 'jobs/export-multi-part',
    ...ENGINE_WORKER,
    access: { table: 'write', dataKey: ['decrypt'], dataBucket: 'read' },
  },
});
