import type * as z from 'zod';
import { writeToDestination } from '../connectors/target';
import { AppError } from '../errors/app-error';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import { recordUsage } from '../usage';
import { DirectExportCredentials, MultiPartCredentials } from './items';
import type { directExportJob, multiPartExportJob } from './jobs';
import { exportInParts } from './multi-part';
import { CONTENT_TYPES, exportKeys, produceExport } from './run';
import { openJobCredentials } from './store';

/**
 * The direct export job's work (functions/jobs/export-direct.ts): the output is written
 * locally in total_files files, then uploaded to the store named in the request; no object
 * appears under its final key before all are written (shared/connectors/object-store/write.ts).
 * The credentials are opened here only, and the job's end deletes them, whatever the outcome
 * (JobRef.secret).
 */
export async function exportDirect({
  job,
  params,
  pulse,
  workDir,
}: JobStep<z.output<typeof directExportJob.params>>): Promise<JobOutcome<{ readonly files: number }>> {
  const credentials = await openJobCredentials(job, 'DIRECT_EXPORT', DirectExportCredentials);
  const files = await produceExport(job.tenant_id, params.shape, params.total_files, pulse, workDir);
  const keys = exportKeys(params.key, params.total_files, params.shape.format);
  const rows = files.reduce((sum, file) => sum + file.rows, 0);
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  pulse.watch(true);
  await writeToDestination(
    {
      type: 'object_store',
      endpoint: credentials.endpoint,
      bucket: params.bucket,
      accessKeyId: credentials.access_key,
      secretAccessKey: credentials.secret_key,
      ...(credentials.session_token ? { sessionToken: credentials.session_token } : {}),
    },
    files.map((file, index) => ({
      key: keys[index]!,
      localPath: file.localPath,
      bytes: file.bytes,
      contentType: CONTENT_TYPES[params.shape.format],
    })),
    {
      signal: pulse.signal,
      onProgress: (written) =>
        pulse.progress({ stage: 'WRITING', percent: 40 + Math.floor((60 * written) / Math.max(1, total)), rows }),
    },
  );
  pulse.watch(false);
  await recordUsage(job.tenant_id, 'DATA_WRITTEN_BYTES', total);
  return {
    progress: { stage: 'DONE', percent: 100, rows, bytes_written: total },
    fields: { files: keys },
    output: { files: keys.length },
  };
}

/**
 * The multi-part export job's work (functions/jobs/export-multi-part.ts): the output written
 * and PUT to exactly as many parts as the caller sent URLs (exportInParts: every part but the
 * last at least 5 MiB). The caller completes the upload with the ETags the job records; the
 * URLs are deleted with the job's end.
 */
export async function exportMultiPart({
  job,
  params,
  pulse,
  workDir,
}: JobStep<z.output<typeof multiPartExportJob.params>>): Promise<JobOutcome<{ readonly parts: number }>> {
  const { parts_urls: urls } = await openJobCredentials(job, 'MULTI_PART_EXPORT', MultiPartCredentials);
  if (urls.length !== params.parts)
    throw new AppError('10-500', {
      extraDetails: { cause: `${urls.length} part URLs stored for ${params.parts} parts` },
    });
  const { parts, rows } = await exportInParts(job.tenant_id, params.shape, urls, pulse, workDir);
  const result = parts.map((part) => ({ e_tag: part.eTag, part_number: part.partNumber }));
  const written = parts.reduce((sum, part) => sum + part.bytes, 0);
  await recordUsage(job.tenant_id, 'DATA_WRITTEN_BYTES', written);
  return {
    progress: { stage: 'DONE', percent: 100, rows, bytes_written: written },
    fields: { result },
    output: { parts: result.length },
  };
}
