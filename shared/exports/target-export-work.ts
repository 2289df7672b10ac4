import type * as z from 'zod';
import { openConnectionSecret } from '../connections/secret';
import { targetWriter } from '../connectors/target';
import { requireConnector } from '../features/store';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import { MAX_KEY_SEGMENT_BYTES } from '../model/object-key';
import { renderDestination } from '../targets/destination';
import { targetForExport } from '../targets/store';
import { recordUsage } from '../usage';
import { FORMAT_EXTENSIONS } from './engine';
import type { targetExportJob } from './jobs';
import { CONTENT_TYPES, produceExport } from './run';
import { exportStore } from './target-exports';

/** A file name from the source's name: what a folder listing shows, safe in any store. */
function fileName(sourceName: string, version: number, extension: string): string {
  const stem = sourceName.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'export';
  const suffix = `-v${version}${extension}`;
  // ASCII only, so characters are bytes: a long name is cut to keep the file name storable.
  return `${stem.slice(0, MAX_KEY_SEGMENT_BYTES - suffix.length)}${suffix}`;
}

/**
 * The export-to-target job's work (functions/jobs/export-to-target.ts): the target and its
 * connection as they are now (30-6002 when the target went, 30-5002 when its connection lost
 * write permission), the destination rendered from the target's path or table name and
 * dynamic parameters, the output written locally in the format the connection's writer takes
 * and then through that writer, which makes the data visible only once it is whole. The
 * job's end, whatever it is, releases the target (JobRef.claim).
 */
export async function exportToTarget({
  job,
  params,
  pulse,
  workDir,
}: JobStep<z.output<typeof targetExportJob.params>>): Promise<JobOutcome<{ readonly key: string }>> {
  const tenantId = job.tenant_id;
  const exported = await exportStore.get(tenantId, params.export_id);
  const { target, connection } = await targetForExport(tenantId, exported.data.target_id);
  const rendered = renderDestination(target.data, connection, {
    dataset_name: exported.data.source_name,
    version: params.shape.source_version,
    export_id: exported.id,
    started: new Date(exported.created_date),
  });
  await requireConnector(tenantId, connection.data.type);
  const secret = await openConnectionSecret(tenantId, connection);
  const writer = await targetWriter(
    { type: connection.data.type, auth: connection.data.auth, secret, settings: connection.data.settings },
    target.data.type === 'table'
      ? { kind: 'table', table: rendered.table_name ?? '' }
      : { kind: 'bucket', path: rendered.path ?? '' },
  );
  const format = writer.format(params.shape.format);
  const [file] = await produceExport(tenantId, { ...params.shape, format }, 1, pulse, workDir);
  if (!file) throw new Error('the export wrote no file');
  pulse.watch(true);
  // Bucket writers count bytes, table writers rows.
  const total = Math.max(1, target.data.type === 'table' ? file.rows : file.bytes);
  const written = await writer.write(
    {
      ...file,
      name: fileName(exported.data.source_name, params.shape.source_version, FORMAT_EXTENSIONS[format]),
      contentType: CONTENT_TYPES[format],
    },
    {
      signal: pulse.signal,
      onProgress: (done) =>
        pulse.progress({
          stage: 'WRITING',
          percent: 40 + Math.floor((60 * Math.min(done, total)) / total),
          rows: file.rows,
        }),
    },
  );
  pulse.watch(false);
  // The file the writer sent: its bytes are what crossed the boundary (a table writer loads that file).
  await recordUsage(tenantId, 'DATA_WRITTEN_BYTES', file.bytes);
  return {
    progress: { stage: 'DONE', percent: 100, rows: file.rows, bytes_written: file.bytes },
    fields: { exported_table_name: written.exportedTableName, data_target_details: { ...written.details } },
    output: { key: written.exportedTableName },
  };
}
