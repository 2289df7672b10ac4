import type * as z from 'zod';
import { downloadExportSource } from '../exports/run';
import { requireConnector } from '../features/store';
import type { JobOutcome, JobStep } from '../jobs/job-step';
import { targetForExport } from '../targets/store';
import { recordUsage } from '../usage';
import { withParquetRows } from './engine';
import type { transferJob } from './jobs';
import { pricingConnectorFor } from './pricing';
import { sendRows, type TransferCounts } from './run';
import { recordTransferCounts, transferStore } from './store';

/** Of the progress bar, what reading the source and checking the pricing system take before rows flow. */
const SETUP_PERCENT = 5;

/**
 * The transfer job's work (functions/jobs/transfer-to-pricing.ts): the target and its
 * connection as they are now (30-6002 when the target went, 30-5002 when its connection lost
 * write permission), the source's Parquet (30-6001 when it went), then the rows into the
 * pricing system (run.ts) in the destination and columns fixed at the start. Rows sent are
 * the progress; rows the pricing system holds are recorded after every batch, so a failure
 * half-way says how many it took. The bytes sent count as data transfer even when the job
 * fails; its end, whatever it is, releases the target (JobRef.claim).
 */
export async function transferToPricing({
  job,
  params,
  pulse,
  workDir,
}: JobStep<z.output<typeof transferJob.params>>): Promise<JobOutcome<{ readonly rows: number }>> {
  const tenantId = job.tenant_id;
  const { data } = await transferStore.get(tenantId, params.transfer_id);
  const { connection } = await targetForExport(tenantId, data.target_id);
  await requireConnector(tenantId, connection.data.type);
  const sourcePath = await downloadExportSource(
    tenantId,
    {
      source_type: data.source_type,
      source_id: data.source_id,
      source_version: data.source_version,
      use_sample: false,
      validate_release: true,
      columns: null,
      cast_boolean_to_integer: false,
      format: 'parquet',
    },
    workDir,
    pulse.signal,
  );
  const connector = await pricingConnectorFor(tenantId, connection);
  await pulse.stage({ stage: 'WRITING', percent: SETUP_PERCENT, rows: 0 });
  const percentOf = (sent: number) =>
    SETUP_PERCENT +
    Math.floor(((100 - SETUP_PERCENT) * Math.min(sent, data.rows_total)) / Math.max(1, data.rows_total));
  let counts: TransferCounts = { sent: 0, accepted: 0, bytes: 0 };
  pulse.watch(true);
  try {
    counts = await withParquetRows(
      sourcePath,
      data.columns.map((column) => column.name),
      workDir,
      pulse.signal,
      (reader) =>
        sendRows(
          connector,
          {
            key: data.name,
            destination: { projectPath: data.project_path, tablePath: data.table_path },
            columns: data.columns,
            rows: data.rows_total,
          },
          reader,
          pulse.signal,
          async (batch) => {
            counts = batch;
            pulse.progress({
              stage: 'WRITING',
              percent: percentOf(batch.sent),
              rows: batch.sent,
              bytes_written: batch.bytes,
            });
            await recordTransferCounts(job, batch);
          },
        ),
    );
  } finally {
    pulse.watch(false);
    await recordUsage(tenantId, 'DATA_WRITTEN_BYTES', counts.bytes);
  }
  return {
    progress: { stage: 'DONE', percent: 100, rows: counts.sent, bytes_written: counts.bytes },
    fields: { rows_sent: counts.sent, rows_accepted: counts.accepted },
    output: { rows: counts.accepted },
  };
}
