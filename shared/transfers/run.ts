import { AppError, systemText } from '../errors/app-error';
import type {
  PricingColumn,
  PricingConnector,
  PricingDestination,
  PricingLimits,
  PricingUpload,
} from '../connectors/pricing/connector';
import { JOB_TRANSIENT, jobFailureOf } from '../jobs/failure';
import { logger } from '../log';
import { mappedValue } from './pricing';

/**
 * The core of a transfer, apart from where its rows come from: the pricing system's limits
 * checked before anything is sent, then an upload keyed by the transfer that resumes what the
 * pricing system already holds, batches of consecutive sequences, and the commit; an upload
 * whose transfer failed for good is aborted.
 */

/** How long aborting an upload may take: it runs after the transfer's own signal may have aborted. */
const ABORT_TIME_MS = 10_000;

/** Rows a batch carries: well under the pricing system's 10,000, and small enough to retry cheaply. */
export const BATCH_ROWS = 5_000;

/** Where the rows come from: the source's rows in its order, from a row on, in arrays of at most `size`. */
export interface RowReader {
  batches(offset: number, size: number): AsyncIterable<readonly (readonly unknown[])[]>;
}

/** What a transfer sends, fixed when it started. */
export interface TransferPlan {
  /** The upload's key: the transfer's id, so that a retried worker resumes the same upload. */
  readonly key: string;
  readonly destination: PricingDestination;
  readonly columns: readonly PricingColumn[];
  readonly rows: number;
  readonly batchRows?: number;
}

/** How far a transfer got: rows sent (by this attempt and earlier ones), rows the pricing system holds, bytes sent now. */
export interface TransferCounts {
  readonly sent: number;
  readonly accepted: number;
  /** Bytes of the batches' request bodies this attempt sent: the data that crossed the service's boundary. */
  readonly bytes: number;
}

/**
 * 30-6004 naming the table's limits when the source has more columns than it takes, 30-6003
 * naming the rows and the limit when more rows; both with the numbers in extraDetails.
 */
export function assertWithinLimits(limits: PricingLimits, rows: number, columns: number): void {
  if (columns > limits.maxColumns)
    throw new AppError('30-6004', {
      params: [limits.maxRows, limits.maxColumns],
      extraDetails: { columns, max_columns: limits.maxColumns },
    });
  if (rows > limits.maxRows)
    throw new AppError('30-6003', {
      params: [systemText(`${rows} rows; the table takes at most ${limits.maxRows}`)],
      extraDetails: { rows, max_rows: limits.maxRows },
    });
}

/**
 * Sends the plan's rows into the pricing system and commits them. The upload is opened with
 * the transfer's key: when an earlier attempt left rows there, reading resumes after them and
 * sequences after its last, so no row is sent twice. `onBatch` hears the counts after every
 * batch the pricing system took (to record them: a failure half-way then says how many it
 * holds). A count that does not end at the source's rows is refused before the commit.
 *
 * A failure the job's runner tries again (Job.Transient) leaves the upload open, for the next
 * attempt to resume; any other ends the transfer FAILED (or ABORTED, when cancelled), so the
 * upload is aborted: the pricing system drops its rows instead of holding them open forever.
 */
export async function sendRows(
  connector: PricingConnector,
  plan: TransferPlan,
  reader: RowReader,
  signal: AbortSignal,
  onBatch: (counts: TransferCounts) => Promise<void>,
): Promise<TransferCounts> {
  assertWithinLimits(await connector.describeImport(plan.destination, signal), plan.rows, plan.columns.length);
  const upload = await connector.openUpload(plan.key, plan.destination, plan.columns, signal);
  try {
    let counts: TransferCounts = { sent: upload.acceptedRows, accepted: upload.acceptedRows, bytes: 0 };
    let sequence = upload.nextSequence;
    for await (const batch of reader.batches(upload.acceptedRows, plan.batchRows ?? BATCH_ROWS)) {
      const rows = batch.map((row) => plan.columns.map((column, index) => mappedValue(row[index], column.type)));
      const sent = await connector.sendBatch(upload, { sequence, firstRow: counts.sent, rows }, signal);
      sequence += 1;
      counts = { sent: counts.sent + rows.length, accepted: sent.acceptedRows, bytes: counts.bytes + sent.bytes };
      await onBatch(counts);
    }
    if (counts.accepted !== plan.rows)
      throw new AppError('10-500', {
        extraDetails: {
          cause: `the pricing system holds ${counts.accepted} rows of the ${plan.rows} sent; the upload was not committed`,
        },
      });
    await connector.commitUpload(upload, signal);
    return counts;
  } catch (error) {
    if (jobFailureOf(error).name !== JOB_TRANSIENT) await abortUpload(connector, upload, plan.key);
    throw error;
  }
}

/** Aborts an upload whose transfer failed; a failure to abort is logged, as the transfer's own error is what it reports. */
async function abortUpload(connector: PricingConnector, upload: PricingUpload, key: string): Promise<void> {
  try {
    await connector.abortUpload(upload, AbortSignal.timeout(ABORT_TIME_MS));
  } catch (error) {
    logger.warn('aborting the upload of a failed transfer failed', {
      key,
      uploadId: upload.uploadId,
      error: error as Error,
    });
  }
}
