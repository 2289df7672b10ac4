import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import type {
  PricingBatch,
  PricingColumn,
  PricingConnector,
  PricingDestination,
  PricingLimits,
  PricingUpload,
  SentBatch,
} from './connector';
import {
  INVALID_ROW,
  PricingCallFailure,
  importFailure,
  pricingError,
  refusedRow,
  unparsedAnswer,
  type PricingCodes,
} from './errors';
import { pricingExchange, successful, withRetries, type PricingAnswer, type PricingRequest } from './http';

/**
 * The calls the DIM and the SDK share (docs/pricing.md, "The calls"), over a credential each
 * way in provides: a bearer token for the DIM, a session for the SDK. A 401 that says the
 * credential expired gets one renewed credential and one repeat of the call.
 */

/** How one way in authorises calls. */
export interface PricingCredential {
  /** The Authorization header: the live credential, or with `stale` (one an answer refused) a new one. */
  authorization(signal: AbortSignal, stale?: string): Promise<string>;
  /** Whether an answer says the credential expired, so that one renewal may help. */
  expired(answer: PricingAnswer): boolean;
}

interface PricingEndpoint {
  /** The base URL of every call. */
  readonly base: URL;
  /** What messages name: the host as configured. */
  readonly shownHost: string;
  readonly codes: PricingCodes;
  readonly timeoutMs: number;
}

const PingAnswer = z.object({ status: z.literal('ok') });
const ImportAnswer = z.object({
  state: z.enum(['READY', 'NEW', 'LOCKED']),
  maxRows: z.int().nonnegative(),
  maxColumns: z.int().nonnegative(),
});
const UploadAnswer = z.object({
  uploadId: z.string().min(1).max(256),
  acceptedRows: z.int().nonnegative(),
  nextSequence: z.int().nonnegative(),
});
const BatchAnswer = z.object({ acceptedRows: z.int().nonnegative(), nextSequence: z.int().nonnegative() });

function parsed<T>(schema: z.ZodType<T>, answer: PricingAnswer, what: string): T {
  const result = schema.safeParse(answer.json);
  if (!result.success) throw unparsedAnswer(answer.status, what);
  return result.data;
}

export class PricingUploadProtocol implements PricingConnector {
  constructor(
    private readonly endpoint: PricingEndpoint,
    private readonly credential: PricingCredential,
  ) {}

  /** One call with the credential, renewed once when the answer says it expired; `retry` for batches. */
  private async send(
    request: Omit<PricingRequest, 'authorization'>,
    signal: AbortSignal,
    retry = false,
  ): Promise<PricingAnswer> {
    const { base, timeoutMs } = this.endpoint;
    const attempt = async (authorization: string) => {
      const exchange = () => pricingExchange(base, { ...request, authorization }, timeoutMs, signal);
      return retry ? withRetries(exchange, signal) : exchange();
    };
    const authorization = await this.credential.authorization(signal);
    const answer = await attempt(authorization);
    if (answer.status !== 401 || !this.credential.expired(answer)) return successful(answer);
    return successful(await attempt(await this.credential.authorization(signal, authorization)));
  }

  /** Names a failure with this way in's codes; anything else (a token, a login, an abort) goes as it is. */
  private named(error: unknown): unknown {
    return error instanceof PricingCallFailure
      ? pricingError(error, this.endpoint.codes, this.endpoint.shownHost)
      : error;
  }

  async test(signal: AbortSignal): Promise<void> {
    try {
      parsed(PingAnswer, await this.send({ method: 'GET', path: '/ping' }, signal), 'a ping answer');
    } catch (error) {
      throw this.named(error);
    }
  }

  async describeImport(destination: PricingDestination, signal: AbortSignal): Promise<PricingLimits> {
    // The credential first: a refused token is its own code, not a failure of GET /import.
    await this.credential.authorization(signal);
    let answer: z.output<typeof ImportAnswer>;
    try {
      const query = { project: destination.projectPath, table: destination.tablePath };
      answer = parsed(ImportAnswer, await this.send({ method: 'GET', path: '/import', query }, signal), 'an import');
    } catch (error) {
      if (error instanceof PricingCallFailure) throw importFailure(this.endpoint.shownHost, error.reason, error);
      if (error instanceof AppError && error.code !== '30-1130')
        throw importFailure(this.endpoint.shownHost, error.message, error);
      throw error;
    }
    if (answer.state === 'LOCKED') throw importFailure(this.endpoint.shownHost, 'the table is LOCKED', undefined);
    return { maxRows: answer.maxRows, maxColumns: answer.maxColumns };
  }

  async openUpload(
    key: string,
    destination: PricingDestination,
    columns: readonly PricingColumn[],
    signal: AbortSignal,
  ): Promise<PricingUpload> {
    try {
      const body = JSON.stringify({ key, project: destination.projectPath, table: destination.tablePath, columns });
      const answer = await this.send({ method: 'POST', path: '/uploads', body }, signal);
      return parsed(UploadAnswer, answer, 'an upload');
    } catch (error) {
      throw this.named(error);
    }
  }

  async sendBatch(upload: PricingUpload, batch: PricingBatch, signal: AbortSignal): Promise<SentBatch> {
    try {
      const path = `/uploads/${encodeURIComponent(upload.uploadId)}/batches/${batch.sequence}`;
      const body = JSON.stringify({ rows: batch.rows });
      const answer = await this.send({ method: 'PUT', path, body }, signal, true);
      return {
        acceptedRows: parsed(BatchAnswer, answer, 'a batch answer').acceptedRows,
        bytes: Buffer.byteLength(body),
      };
    } catch (error) {
      if (error instanceof PricingCallFailure && error.details.provider_error === INVALID_ROW)
        throw refusedRow(error, batch.firstRow, this.endpoint.shownHost);
      throw this.named(error);
    }
  }

  async commitUpload(upload: PricingUpload, signal: AbortSignal): Promise<void> {
    try {
      await this.send({ method: 'POST', path: `/uploads/${encodeURIComponent(upload.uploadId)}/commit` }, signal);
    } catch (error) {
      throw this.named(error);
    }
  }

  async abortUpload(upload: PricingUpload, signal: AbortSignal): Promise<void> {
    try {
      await this.send({ method: 'POST', path: `/uploads/${encodeURIComponent(upload.uploadId)}/abort` }, signal);
    } catch (error) {
      throw this.named(error);
    }
  }
}
