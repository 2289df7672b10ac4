import type * as z from 'zod';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { deletePrefix, putFile, putJson } from '../aws/data-bucket';
import { openConnectionSecret } from '../connections/secret';
import { connectionStore } from '../connections/store';
import { fetchSource } from '../data-sources/fetch';
import { dataSourceStore } from '../data-sources/store';
import { DEFAULT_PREVIEW_ROWS, DEFAULT_SAMPLE_ROWS } from '../engine/csv-import';
import { importFiles } from '../engine/file-import';
import { AppError } from '../errors/app-error';
import { requireConnector } from '../features/store';
import { settleAll } from '../jobs/settle';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import { checkVersionQuality } from '../quality/check';
import { recordUsage } from '../usage';
import { importJob } from './jobs';
import { VERSION_FILES, versionPrefix } from './storage';
import type { VersionMetadata } from './versions';

/**
 * The import job's work (functions/jobs/import-data-version.ts): reads every data file (CSV,
 * Parquet or JSON Lines) of the data source through its connector into a scratch folder,
 * loads them with DuckDB, writes the version's files to the data bucket, and only then is the
 * version marked COMPLETED. Any failure removes what was written (removeImportedFiles), so a
 * version never reads as ready without its data, and earlier versions are never touched.
 */
type ImportStep = JobStep<z.output<typeof importJob.params>>;

function prefixOf({ job, params }: ImportStep): string {
  return versionPrefix(job.tenant_id, params.data_table_id, params.version_number);
}

/** Imports the version's data; its metadata goes on the version with COMPLETED. */
export async function importDataVersion(step: ImportStep): Promise<JobOutcome<{ readonly row_count: number }>> {
  const { job, params, pulse, workDir } = step;
  const tenantId = job.tenant_id;
  const prefix = prefixOf(step);
  const source = await dataSourceStore.get(tenantId, params.data_source_id);
  const connection = await connectionStore.get(tenantId, source.data.connection_id);
  if (!connection.data.read) throw new AppError('30-1708', { params: [source.id] });
  await requireConnector(tenantId, connection.data.type);
  const secret = await openConnectionSecret(tenantId, connection);

  const sourceDir = join(workDir, 'source');
  await mkdir(sourceDir);
  pulse.watch(true);
  const fetched = await fetchSource(
    { type: connection.data.type, auth: connection.data.auth, secret, settings: connection.data.settings },
    source.data,
    {
      workDir: sourceDir,
      signal: pulse.signal,
      onProgress: ({ bytesRead, filesDone, filesTotal }) =>
        pulse.progress({
          stage: 'READING',
          percent: Math.floor((40 * filesDone) / Math.max(1, filesTotal)),
          bytes_read: bytesRead,
        }),
    },
  );
  pulse.watch(false);
  pulse.throwIfAborted();
  await recordUsage(tenantId, 'DATA_READ_BYTES', fetched.bytesRead);

  await pulse.stage({ stage: 'LOADING', percent: 40, bytes_read: fetched.bytesRead });
  const outDir = join(workDir, 'out');
  await mkdir(outDir);
  const table = await importFiles(
    fetched.files.map((file) => ({ localPath: file.localPath, source: file.source })),
    { outDir, sampleRows: DEFAULT_SAMPLE_ROWS, previewRows: DEFAULT_PREVIEW_ROWS, signal: pulse.signal },
    fetched.columns,
  );
  await pulse.stage({ stage: 'WRITING', percent: 80, bytes_read: fetched.bytesRead, rows: table.rowCount });
  // The table's data-quality rules run over the local data.parquet while the files upload (the
  // check is the engine's CPU, the uploads wait on S3), and both end before the version reads
  // COMPLETED; CHECKING is shown when the uploads are done first.
  let checked = false;
  const checking = checkVersionQuality({
    tenantId,
    dataTableId: params.data_table_id,
    dataPath: table.dataPath,
    workDir,
    signal: pulse.signal,
    memoryMb: importJob.worker.memoryMb,
  }).finally(() => (checked = true));
  const uploads = settleAll([
    putFile(prefix + VERSION_FILES.data, table.dataPath, 'application/vnd.apache.parquet'),
    putFile(prefix + VERSION_FILES.sample, table.samplePath, 'application/vnd.apache.parquet'),
    putFile(prefix + VERSION_FILES.sampleJson, table.sampleJsonPath, 'application/x-ndjson'),
    putJson(prefix + VERSION_FILES.preview, table.previewRows),
    putJson(prefix + VERSION_FILES.schema, table.columns),
  ]).then(async () => {
    if (!checked)
      await pulse.stage({ stage: 'CHECKING', percent: 90, bytes_read: fetched.bytesRead, rows: table.rowCount });
  });
  // Every upload settles before a failure goes on to the clean-up, which removes what they wrote.
  const [, quality] = await settleAll([uploads, checking]);
  pulse.throwIfAborted();

  const metadata: VersionMetadata = {
    row_count: table.rowCount,
    column_count: table.columns.length,
    columns: table.columns,
    source_files: fetched.files.length,
    bytes_read: fetched.bytesRead,
    data_bytes: (await stat(table.dataPath)).size,
    ...(fetched.sourceVersion === undefined ? {} : { source_version: fetched.sourceVersion }),
  };
  return {
    progress: { stage: 'DONE', percent: 100, bytes_read: fetched.bytesRead, rows: table.rowCount },
    fields: quality ? { metadata, quality } : { metadata },
    output: { row_count: table.rowCount },
  };
}

/** The failed import's cleanup: every file of its version goes, whatever was written. */
export function removeImportedFiles(step: ImportStep): Promise<void> {
  return deletePrefix(prefixOf(step));
}
