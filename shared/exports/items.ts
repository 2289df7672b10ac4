import * as z from 'zod';
import { StoredActor } from '../db/items';
import { StoredExecution } from '../jobs/status';
import { UploadedPart } from '../model/export';
import { SealedSecret } from '../secrets/envelope';
import { ExportShape } from './jobs';

/**
 * The stored items of direct and multi-part exports: a job item per export (keys.job), read
 * by its job id, and beside it the sealed credentials (keys.jobSecret), which the job's end
 * deletes in the same transaction as its final status (JobRef.secret).
 *
 *   job     { job_id, shape, execution, created_by, created_date, <kind's fields> }
 *   secret  { sealed, expires_at }
 */
const JobFields = {
  job_id: z.string(),
  shape: ExportShape,
  execution: StoredExecution,
  created_by: StoredActor,
  created_date: z.string(),
};

export const StoredDirectExport = z.object({
  ...JobFields,
  bucket: z.string(),
  key: z.string(),
  total_files: z.int(),
  /** The keys written, set with COMPLETED. */
  files: z.array(z.string()).optional(),
});
export type StoredDirectExport = z.infer<typeof StoredDirectExport>;

export const StoredMultiPartExport = z.object({
  ...JobFields,
  parts: z.int(),
  /** Every part's ETag, set with COMPLETED. */
  result: z.array(UploadedPart).optional(),
});
export type StoredMultiPartExport = z.infer<typeof StoredMultiPartExport>;

/**
 * A job's credentials, sealed (shared/secrets/envelope.ts). expires_at (DynamoDB TTL) is the
 * backstop for a job whose end was never recorded: it lies past the longest a state machine
 * may run.
 */
export const StoredJobSecret = z.object({ sealed: SealedSecret, expires_at: z.int() });

/** What a direct export's secret item seals. */
export const DirectExportCredentials = z.object({
  endpoint: z.string(),
  access_key: z.string(),
  secret_key: z.string(),
  session_token: z.string().optional(),
});
export type DirectExportCredentials = z.infer<typeof DirectExportCredentials>;

/** What a multi-part export's secret item seals: the pre-signed URLs are bearer capabilities. */
export const MultiPartCredentials = z.object({ parts_urls: z.array(z.string()).min(1) });
export type MultiPartCredentials = z.infer<typeof MultiPartCredentials>;
