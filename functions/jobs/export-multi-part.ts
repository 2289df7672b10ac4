import { partRanges, putPart, type PartRange } from '../../shared/connectors/presigned-parts';
import { MultiPartCredentials } from '../../shared/exports/items';
import { multiPartExportJob } from '../../shared/exports/jobs';
import { produceExport } from '../../shared/exports/run';
import { openJobCredentials } from '../../shared/exports/store';
import { AppError } from '../../shared/errors/app-error';
import { jobWorker } from '../../shared/jobs/worker-step';
import type { UploadedPart } from '../../shared/model/export';

/** Parts in flight at once. */
const CONCURRENT_PARTS = 4;

/**
 * The multi-part export step: the output is written locally as one file, cut into exactly as
 * many parts as the caller sent URLs (every part but the last at least 5 MiB), and each part
 * PUT to its URL. The caller completes the upload with the ETags the job records; the URLs
 * are deleted with the job's end.
 */
export const handler = jobWorker(multiPartExportJob, { stage: 'READING', percent: 0 }, async ({ job, params, pulse, workDir }) => {
  const { parts_urls: urls } = await openJobCredentials(job, 'MULTI_PART_EXPORT', MultiPartCredentials);
  if (urls.length !== params.parts) throw new AppError('10-500', { extraDetails: { cause: `${urls.length} part URLs stored for ${params.parts} parts` } });
  const [file] = await produceExport(job.tenant_id, params.shape, 1, pulse, workDir);
  if (!file) throw new Error('the export wrote no file');
  const ranges = partRanges(file.bytes, params.parts);
  const result: UploadedPart[] = [];
  let sent = 0;
  let next = 0;
  // The first part that fails stops the others: the job has failed, its parts are of no use.
  const stop = new AbortController();
  const signal = AbortSignal.any([pulse.signal, stop.signal]);
  pulse.watch(true);
  const upload = async (): Promise<void> => {
    for (let range: PartRange | undefined; (range = ranges[next]) !== undefined;) {
      next += 1;
      const index = range.partNumber - 1;
      const eTag = await putPart(urls[index]!, index, file.localPath, range, signal).catch((error: unknown) => {
        if (!signal.aborted) stop.abort(error);
        throw error;
      });
      result.push({ e_tag: eTag, part_number: range.partNumber });
      sent += range.length;
      pulse.progress({ stage: 'WRITING', percent: 40 + Math.floor((60 * sent) / file.bytes), rows: file.rows });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_PARTS, ranges.length) }, upload));
  pulse.watch(false);
  result.sort((a, b) => a.part_number - b.part_number);
  return { progress: { stage: 'DONE', percent: 100, rows: file.rows }, fields: { result }, output: { parts: result.length } };
});
