import { MultiPartCredentials } from '../../shared/exports/items';
import { multiPartExportJob } from '../../shared/exports/jobs';
import { exportInParts } from '../../shared/exports/multi-part';
import { openJobCredentials } from '../../shared/exports/store';
import { AppError } from '../../shared/errors/app-error';
import { jobWorker } from '../../shared/jobs/worker-step';
import { recordUsage } from '../../shared/usage';

/**
 * The multi-part export step: the output written and PUT to exactly as many parts as the
 * caller sent URLs (exportInParts: every part but the last at least 5 MiB). The caller
 * completes the upload with the ETags the job records; the URLs are deleted with the job's end.
 */
export const handler = jobWorker(
  multiPartExportJob,
  { stage: 'READING', percent: 0 },
  async ({ job, params, pulse, workDir }) => {
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
  },
);
