import { writeToDestination } from '../../shared/connectors/target';
import { DirectExportCredentials } from '../../shared/exports/items';
import { directExportJob } from '../../shared/exports/jobs';
import { CONTENT_TYPES, exportKeys, produceExport } from '../../shared/exports/run';
import { openJobCredentials } from '../../shared/exports/store';
import { jobWorker } from '../../shared/jobs/worker-step';
import { recordUsage } from '../../shared/usage';

/**
 * The direct export step: the output is written locally in total_files files, then uploaded
 * to the store named in the request; no object appears under its final key before all are
 * written (shared/connectors/object-store/write.ts). The credentials are opened here only,
 * and the job's end deletes them, whatever the outcome (JobRef.secret).
 */
export const handler = jobWorker(
  directExportJob,
  { stage: 'READING', percent: 0 },
  async ({ job, params, pulse, workDir }) => {
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
  },
);
