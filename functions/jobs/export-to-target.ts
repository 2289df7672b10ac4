import { secretContext } from '../../shared/connections/store';
import { folderDestination, writeToDestination } from '../../shared/connectors/target';
import { AppError } from '../../shared/errors/app-error';
import { FORMAT_EXTENSIONS } from '../../shared/exports/engine';
import { targetExportJob } from '../../shared/exports/jobs';
import { CONTENT_TYPES, produceExport } from '../../shared/exports/run';
import { exportStore } from '../../shared/exports/target-exports';
import { jobWorker } from '../../shared/jobs/worker-step';
import { open } from '../../shared/secrets/envelope';
import { renderDestination } from '../../shared/targets/destination';
import { targetForExport } from '../../shared/targets/store';

/** A file name from the source's name: what a folder listing shows, safe in any store. */
function fileName(sourceName: string, version: number, extension: string): string {
  const stem = sourceName.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'export';
  return `${stem}-v${version}${extension}`;
}

/**
 * The export-to-target step: the target and its connection as they are now (30-6002 when
 * the target went, 30-5002 when its connection lost write permission), the destination
 * rendered from the target's path and dynamic parameters, the output written locally and
 * then through the connection's writer, which makes the object visible only once it is
 * whole. The job's end, whatever it is, releases the target (JobRef.claim).
 */
export const handler = jobWorker(targetExportJob, { stage: 'READING', percent: 0 }, async ({ job, params, pulse, workDir }) => {
  const tenantId = job.tenant_id;
  const exported = await exportStore.get(tenantId, params.export_id);
  const { target, connection } = await targetForExport(tenantId, exported.data.target_id);
  // Table targets (warehouses, analytics databases) get their writers with their connectors.
  if (target.data.type !== 'bucket') throw new AppError('10-1501', { params: [`connector.${connection.data.type}`] });
  const rendered = renderDestination(target.data, connection, {
    dataset_name: exported.data.source_name,
    version: params.shape.source_version,
    export_id: exported.id,
    started: new Date(exported.created_date),
  });
  const secret = await open(connection.data.secret, secretContext(tenantId, connection.id));
  const { destination, prefix } = folderDestination({ type: connection.data.type, auth: connection.data.auth, secret, settings: connection.data.settings }, rendered.path ?? '');
  const [file] = await produceExport(tenantId, params.shape, 1, pulse, workDir);
  if (!file) throw new Error('the export wrote no file');
  const key = `${prefix}${fileName(exported.data.source_name, params.shape.source_version, FORMAT_EXTENSIONS[params.shape.format])}`;
  pulse.watch(true);
  await writeToDestination(destination, [{ key, localPath: file.localPath, bytes: file.bytes, contentType: CONTENT_TYPES[params.shape.format] }], {
    signal: pulse.signal,
    onProgress: (written) => pulse.progress({ stage: 'WRITING', percent: 40 + Math.floor((60 * written) / Math.max(1, file.bytes)), rows: file.rows }),
  });
  pulse.watch(false);
  return {
    progress: { stage: 'DONE', percent: 100, rows: file.rows },
    fields: { exported_table_name: key, data_target_details: { bucket: destination.bucket, key, path: rendered.path ?? '' } },
    output: { key },
  };
});
