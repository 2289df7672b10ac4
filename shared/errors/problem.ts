import { STATUS_CODES } from 'node:http';
import type { Problem } from '../model/problem';
import { isAppError, type AppError } from './app-error';

export interface ProblemContext {
  /** Request path, reported as `instance`. */
  readonly instance: string;
  readonly traceId: string;
  /** Prefix of problem type URIs; relative URIs resolve against the API itself. */
  readonly errorBase: string;
  readonly now?: Date;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function toProblem(error: AppError, context: ProblemContext): Problem {
  return {
    type: `${context.errorBase}/errors/${error.code}`,
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    instance: context.instance,
    code: error.code,
    timestamp: (context.now ?? new Date()).toISOString(),
    ...(error.extraDetails === undefined ? {} : { extraDetails: { ...error.extraDetails } }),
    traceId: context.traceId,
  };
}

/**
 * A refusal of one item of a batch, as the item's result shows it: the problem's code, status
 * and message. Anything but an AppError is no refusal and is rethrown, to fail the request.
 */
export function batchItemError(error: unknown): { code: string; status: number; message: string } {
  if (!isAppError(error)) throw error;
  return { code: error.code, status: error.status, message: error.message };
}
