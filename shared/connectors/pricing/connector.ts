/**
 * The pricing system behind one interface: a DIM endpoint (OAuth 2.0 client credentials) or an
 * SDK endpoint (RFC 7523 private-key JWT, then a session), as docs/pricing.md describes the wire
 * protocol. Connection tests and transfers use only this interface, so a real vendor's API slots
 * in by implementing it. Every method throws catalogue errors (AppError), never a raw one.
 */
import type { PricingType } from '../../model/transfer';

/** A column as the pricing system receives it: the source name and its mapped type. */
export interface PricingColumn {
  readonly name: string;
  readonly type: PricingType;
}

/** Where rows go: a project path (`\A\B`) and a table path inside it (`C\D\`), as a target renders them. */
export interface PricingDestination {
  readonly projectPath: string;
  readonly tablePath: string;
}

/** What the pricing system accepts in one table: checked before any row is sent (30-6003, 30-6004). */
export interface PricingLimits {
  readonly maxRows: number;
  readonly maxColumns: number;
}

/** One batch of rows of an upload, in column order; values are JSON scalars (null, string, number, boolean). */
export interface PricingBatch {
  /** 0-based, consecutive within an upload: the pricing system ignores a sequence it already holds. */
  readonly sequence: number;
  /** The source row (0-based, in the order sent) the batch starts at: what names a row the system refused. */
  readonly firstRow: number;
  readonly rows: readonly (readonly (string | number | boolean | null)[])[];
}

/** What the pricing system holds after a batch, and the size of the batch's request body (its JSON, once). */
export interface SentBatch {
  readonly acceptedRows: number;
  readonly bytes: number;
}

/** An upload the pricing system holds open until it is committed or aborted. */
export interface PricingUpload {
  readonly uploadId: string;
  /** Rows the pricing system already holds for this upload (non-zero when an upload is resumed). */
  readonly acceptedRows: number;
  /** The next batch sequence the pricing system expects. */
  readonly nextSequence: number;
}

export interface PricingConnector {
  /** A token (or session) and one cheap call: the connection test. */
  test(signal: AbortSignal): Promise<void>;
  /** The DIM's `GET /import` for a destination: its limits (a failure is 10-1046 naming the DIM and the reason). */
  describeImport(destination: PricingDestination, signal: AbortSignal): Promise<PricingLimits>;
  /**
   * Opens an upload of the given columns, or resumes the one opened with the same key (a
   * transfer's id): a retried transfer never sends a row twice.
   */
  openUpload(
    key: string,
    destination: PricingDestination,
    columns: readonly PricingColumn[],
    signal: AbortSignal,
  ): Promise<PricingUpload>;
  /** Sends one batch, retrying transient failures; answers the rows the upload now holds and the bytes sent. */
  sendBatch(upload: PricingUpload, batch: PricingBatch, signal: AbortSignal): Promise<SentBatch>;
  /** Makes the upload's rows visible in the destination table, all of them or none. */
  commitUpload(upload: PricingUpload, signal: AbortSignal): Promise<void>;
  /** Drops an open upload and the rows it holds (a transfer that failed for good); one already aborted answers as it did. */
  abortUpload(upload: PricingUpload, signal: AbortSignal): Promise<void>;
}
