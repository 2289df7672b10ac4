import { AppError, excerpt, systemText } from '../../errors/app-error';
import { classifyNoAnswer } from '../no-answer';

/**
 * What the pricing system's answers and silences mean (docs/pricing.md, "Error codes"). A call
 * first fails as a PricingCallFailure, which says what happened; the connector then names it
 * with its type's codes, or as 10-1046 when the call was the DIM's GET /import. Only the
 * system's error code reaches the caller, never its message, which may echo what was sent.
 */

/** The codes of one way in: the DIM's, or the SDK's. */
export interface PricingCodes {
  /** No answer: a name that does not resolve, a refused port, no route. */
  readonly unreachable: '30-4006' | '30-4103';
  /** A 5xx, a time-out, a reset, or an answer that is not the protocol's. */
  readonly failing: '30-4007' | '30-4100';
}

export const DIM_CODES: PricingCodes = { unreachable: '30-4006', failing: '30-4007' };
export const SDK_CODES: PricingCodes = { unreachable: '30-4103', failing: '30-4100' };

type FailureKind = 'unreachable' | 'failing' | 'unauthorized';

/** The pricing system's code for a batch with a row it does not take (docs/pricing.md). */
export const INVALID_ROW = 'invalid_row';

/** A call to the pricing system that did not succeed, before it is named with a code. */
export class PricingCallFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** What happened, in words a message may carry ("HTTP 503", "connection_refused"). */
    readonly reason: string,
    readonly details: FailureDetails,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'PricingCallFailure';
  }
}

/** What an error answer said, as far as a message or extraDetails may carry it. */
interface FailureDetails {
  readonly provider_status?: number;
  readonly provider_error?: string;
  /** `invalid_row`: the refused row's index in its batch, and the column, when the answer names them. */
  readonly provider_row?: number;
  readonly provider_column?: string;
}

/** The row and column an `invalid_row` answer names (docs/pricing.md). */
function refusedRowOf(json: unknown): Pick<FailureDetails, 'provider_row' | 'provider_column'> {
  const { row, column } = (json ?? {}) as { row?: unknown; column?: unknown };
  return {
    ...(Number.isSafeInteger(row) && (row as number) >= 0 ? { provider_row: row as number } : {}),
    ...(typeof column === 'string' && column !== '' ? { provider_column: column } : {}),
  };
}

/** The system's own error code of an error answer, when it is one a message may show. */
function providerErrorOf(json: unknown): string | undefined {
  const error = (json as { error?: unknown } | null | undefined)?.error;
  return typeof error === 'string' && /^[a-z0-9_.-]{1,64}$/i.test(error) ? error : undefined;
}

/** The failure of a non-2xx answer. */
export function answerFailure(status: number, json: unknown): PricingCallFailure {
  const providerError = providerErrorOf(json);
  const details = {
    provider_status: status,
    ...(providerError ? { provider_error: providerError } : {}),
    ...(providerError === INVALID_ROW ? refusedRowOf(json) : {}),
  };
  const reason = `HTTP ${status}${providerError ? ` ${providerError}` : ''}`;
  return new PricingCallFailure(status === 401 || status === 403 ? 'unauthorized' : 'failing', reason, details);
}

/** The failure of a 2xx answer that is not the protocol's. */
export function unparsedAnswer(status: number, what: string): PricingCallFailure {
  return new PricingCallFailure('failing', `the answer is not ${what}`, { provider_status: status });
}

/**
 * The failure of a call that got no answer; a forbidden destination is 30-1130 at once, and
 * an AppError (a token or login that failed) stays what it is.
 */
export function transportFailure(error: unknown): PricingCallFailure | AppError {
  if (error instanceof AppError || error instanceof PricingCallFailure) return error;
  const noAnswer = classifyNoAnswer(error);
  if (noAnswer.kind === 'blocked') return noAnswer.error;
  const reason = noAnswer.reason ?? 'network_error';
  return new PricingCallFailure(noAnswer.kind, reason, { provider_error: reason }, { cause: error });
}

/** A failure named with the codes of one way in; `host` is what 30-4006, 30-4100 and 30-4103 name. */
export function pricingError(failure: PricingCallFailure, codes: PricingCodes, host: string): AppError {
  const extraDetails = { ...failure.details, reason: failure.reason };
  switch (failure.kind) {
    case 'unauthorized':
      return new AppError('30-4005', { cause: failure, extraDetails });
    case 'unreachable':
      return new AppError(codes.unreachable, { params: [host], cause: failure, extraDetails });
    case 'failing':
      return new AppError(codes.failing, { params: [host], cause: failure, extraDetails });
  }
}

/**
 * A batch refused for one of its rows (400 `invalid_row`): not a failure to connect but a row
 * whose values the pricing system does not take for their columns' types, so 30-4009 (type
 * mapping validation failed, the catalogue's code for values and pricing types that do not
 * fit), naming the row (1-based, in the order sent) and the column; `firstRow` is the batch's.
 */
export function refusedRow(failure: PricingCallFailure, firstRow: number, host: string): AppError {
  const { provider_row: inBatch, provider_column: column } = failure.details;
  const row = inBatch === undefined ? undefined : firstRow + inBatch + 1;
  const which = row === undefined ? `a row from row ${firstRow + 1} on` : `row ${row}`;
  const where = column === undefined ? '' : `, column ${excerpt(column)}`;
  return new AppError('30-4009', {
    message: `Type mapping validation failed: the pricing system (${excerpt(host)}) refused ${which} of the source${where} (${INVALID_ROW})`,
    cause: failure,
    extraDetails: {
      reason: `the pricing system refused a row of the batch: ${INVALID_ROW}`,
      ...(row === undefined ? { first_row: firstRow + 1 } : { row }),
      ...(column === undefined ? {} : { column }),
      provider_status: failure.details.provider_status,
      provider_error: INVALID_ROW,
    },
  });
}

/** The DIM's GET /import failed: 10-1046 naming the system and the reason, a text of the service's own (quoted whole). */
export function importFailure(host: string, reason: string, cause: unknown): AppError {
  return new AppError('10-1046', { params: [host, systemText(reason)], cause, extraDetails: { reason } });
}

/**
 * The code of a token endpoint's failure (a 30-12xx AppError from the OAuth modules): a refused
 * client is 30-4005, anything else that kept the token away 30-4102; its own code goes along.
 * A forbidden destination stays 30-1130.
 */
export function tokenFailure(error: unknown): AppError {
  if (!(error instanceof AppError)) return new AppError('30-4102', { cause: error });
  if (error.code === '30-1130' || error.code.startsWith('30-40') || error.code.startsWith('30-41')) return error;
  const details = { ...error.extraDetails, cause_code: error.code };
  const refused = ['30-1200', '30-1201', '30-1202', '30-1203'].includes(error.code);
  return new AppError(refused ? '30-4005' : '30-4102', { cause: error, extraDetails: details });
}
