/**
 * An in-memory PricingConnector for the transfer core's unit tests: it keeps uploads by key
 * as docs/pricing.md describes them (a repeated sequence is ignored, a gap refused, a
 * committed upload takes no batch) and fails where a test tells it to.
 */
import type {
  PricingBatch,
  PricingColumn,
  PricingConnector,
  PricingDestination,
  PricingLimits,
  PricingUpload,
  SentBatch,
} from '../../../shared/connectors/pricing/connector';
import { AppError } from '../../../shared/errors/app-error';

type Row = PricingBatch['rows'][number];

export interface HeldUpload {
  readonly key: string;
  readonly destination: PricingDestination;
  readonly columns: readonly PricingColumn[];
  readonly batches: Map<number, readonly Row[]>;
  state: 'OPEN' | 'COMMITTED' | 'ABORTED';
}

/**
 * How the double misbehaves on the n-th batch call (0-based, counted over its whole life):
 * `refuse` fails it as a failing system does (30-4007), `transient` with a failure the job's
 * runner tries again (30-1110), `lose-answer` takes it and loses the answer (a transient
 * failure too, so that the next attempt resumes).
 */
export type BatchFault = 'refuse' | 'transient' | 'lose-answer';

export class PricingDouble implements PricingConnector {
  readonly uploads = new Map<string, HeldUpload>();
  /** Every batch call, in order: what a test reads to see what was sent. */
  readonly calls: { readonly key: string; readonly sequence: number; readonly rows: number }[] = [];
  readonly faults = new Map<number, BatchFault>();
  describeCalls = 0;

  constructor(private readonly limits: PricingLimits = { maxRows: 1_000_000, maxColumns: 200 }) {}

  test(): Promise<void> {
    return Promise.resolve();
  }

  describeImport(): Promise<PricingLimits> {
    this.describeCalls += 1;
    return Promise.resolve(this.limits);
  }

  openUpload(key: string, destination: PricingDestination, columns: readonly PricingColumn[]): Promise<PricingUpload> {
    const held: HeldUpload = this.uploads.get(key) ?? { key, destination, columns, batches: new Map(), state: 'OPEN' };
    // An aborted upload's key is not resumed (docs/pricing.md: 409 key_conflict).
    if (held.state === 'ABORTED') return Promise.reject(new AppError('30-4007'));
    this.uploads.set(key, held);
    return Promise.resolve({ uploadId: key, acceptedRows: rowsOf(held), nextSequence: held.batches.size });
  }

  sendBatch(upload: PricingUpload, batch: PricingBatch): Promise<SentBatch> {
    const held = this.uploads.get(upload.uploadId)!;
    const call = this.calls.push({ key: held.key, sequence: batch.sequence, rows: batch.rows.length }) - 1;
    const fault = this.faults.get(call);
    if (fault === 'refuse') return Promise.reject(new AppError('30-4007'));
    if (fault === 'transient') return Promise.reject(new AppError('30-1110'));
    if (held.state !== 'OPEN') return Promise.reject(new Error('upload_closed'));
    if (batch.sequence > held.batches.size) return Promise.reject(new Error(`sequence_gap at ${batch.sequence}`));
    if (!held.batches.has(batch.sequence)) held.batches.set(batch.sequence, batch.rows);
    if (fault === 'lose-answer') return Promise.reject(new AppError('30-1110'));
    // The bytes a real connector sends for the batch: its JSON body.
    return Promise.resolve({
      acceptedRows: rowsOf(held),
      bytes: Buffer.byteLength(JSON.stringify({ rows: batch.rows })),
    });
  }

  commitUpload(upload: PricingUpload): Promise<void> {
    this.uploads.get(upload.uploadId)!.state = 'COMMITTED';
    return Promise.resolve();
  }

  /** Every abort call, by key. */
  readonly aborts: string[] = [];
  /** Makes every abort fail (a pricing system that went away). */
  abortFails = false;

  /** Drops an open upload as the pricing system does: its rows go, and its key is not resumed. */
  abortUpload(upload: PricingUpload): Promise<void> {
    const held = this.uploads.get(upload.uploadId)!;
    this.aborts.push(held.key);
    if (this.abortFails || held.state === 'COMMITTED') return Promise.reject(new AppError('30-4007'));
    held.state = 'ABORTED';
    held.batches.clear();
    return Promise.resolve();
  }

  /** The rows an upload holds, in sequence order. */
  rows(key: string): Row[] {
    const held = this.uploads.get(key);
    if (!held) return [];
    return [...held.batches.entries()].sort(([a], [b]) => a - b).flatMap(([, rows]) => rows);
  }
}

function rowsOf(upload: HeldUpload): number {
  let rows = 0;
  for (const batch of upload.batches.values()) rows += batch.length;
  return rows;
}
