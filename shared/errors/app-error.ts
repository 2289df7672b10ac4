import { errorCatalogue, type ErrorCode } from './catalogue';

export type ErrorParam = string | number | bigint | boolean;

export interface AppErrorOptions {
  /** Values for the message template's placeholders {0}..{n}, in order. */
  readonly params?: readonly ErrorParam[];
  /** Extra context for the caller; for 10-1400 it maps each invalid field to its rule. */
  readonly extraDetails?: Readonly<Record<string, unknown>>;
  /** Technical root cause. Logged, never sent to the caller of an HTTP route. */
  readonly cause?: unknown;
  /**
   * HTTP status other than the catalogue's, only where the design fixes one: a wrong method
   * answers 405 with code 10-400.
   */
  readonly status?: number;
}

/**
 * A failure with a code of the catalogue. Everything that can go wrong in a way the caller
 * should hear about is thrown as an AppError; anything else becomes 10-500.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extraDetails: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(renderMessage(code, options.params ?? []), { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? errorCatalogue[code].status;
    this.extraDetails = options.extraDetails;
  }
}

/** Fills {0}..{n} and capitalises the first letter; unknown placeholders stay visible. */
export function renderMessage(code: ErrorCode, params: readonly ErrorParam[]): string {
  const text = errorCatalogue[code].message.replace(/\{(\d+)\}/g, (placeholder, index: string) => {
    const value = params[Number(index)];
    return value === undefined ? placeholder : String(value);
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 10-1400 with every violated field and its rule. */
export function validationError(fields: Readonly<Record<string, string>>): AppError {
  return new AppError('10-1400', { extraDetails: fields });
}

/** 10-404 for an entity that does not exist or belongs to another tenant (no existence leak). */
export function notFound(entity: string, id: ErrorParam): AppError {
  return new AppError('10-404', { params: [entity, id] });
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
