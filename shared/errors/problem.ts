import { STATUS_CODES } from 'node:http';
import type { Problem } from './problem-body';
import { boundedText, isAppError, type AppError } from './app-error';

export interface ProblemContext {
  /** Request path, reported as `instance`. */
  readonly instance: string;
  readonly traceId: string;
  /** Prefix of problem type URIs; relative URIs resolve against the API itself. */
  readonly errorBase: string;
  readonly now?: Date;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The RFC 7807 body of an error. The message quotes submitted values as excerpts already
 * (renderMessage); extraDetails and the instance may repeat them too (a field name the caller
 * made up, an engine's message quoting the SQL, the request path), so every text in them, member
 * names included, is bounded: at most ECHO_LENGTH characters, no control or invisible character.
 */
export function toProblem(error: AppError, context: ProblemContext): Problem {
  return {
    type: `${context.errorBase}/errors/${error.code}`,
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    instance: boundedText(context.instance),
    code: error.code,
    timestamp: (context.now ?? new Date()).toISOString(),
    ...(error.extraDetails === undefined ? {} : { extraDetails: boundedDetails(error.extraDetails) }),
    traceId: context.traceId,
  };
}

/** extraDetails with every text bounded (toProblem; job errors too); members whose names collide once bounded keep both texts. */
export function boundedDetails(details: Readonly<Record<string, unknown>>): Record<string, unknown> {
  // No prototype: a field named "__proto__" is reported like any other.
  const bounded = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(details)) {
    const key = boundedText(name);
    const text = boundedValue(value);
    const earlier = bounded[key];
    bounded[key] =
      typeof earlier === 'string' && typeof text === 'string' && earlier !== text
        ? boundedText(`${earlier}; ${text}`)
        : text;
  }
  return bounded;
}

function boundedValue(value: unknown): unknown {
  if (typeof value === 'string') return boundedText(value);
  if (Array.isArray(value)) return value.map(boundedValue);
  if (typeof value === 'object' && value !== null) return boundedDetails(value as Record<string, unknown>);
  return value;
}

/**
 * A refusal of one item of a batch, as the item's result shows it: the problem's code, status
 * and message. Anything but an AppError is no refusal and is rethrown, to fail the request.
 */
export function batchItemError(error: unknown): { code: string; status: number; message: string } {
  if (!isAppError(error)) throw error;
  return { code: error.code, status: error.status, message: error.message };
}
