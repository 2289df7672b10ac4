import { AppError } from '../errors/app-error';

/**
 * Refusals of a request's form rather than its content: code 10-400 (the request cannot be
 * read) with the HTTP status that names what is wrong, and the reason in extraDetails. The
 * OpenAPI document declares each on the operations it can reach.
 */
export const FORM_REFUSAL_STATUSES = {
  methodNotAllowed: 405,
  contentTooLarge: 413,
  unsupportedMediaType: 415,
} as const;

/** A method the path does not offer; the Allow header lists those it does. */
export function methodNotAllowed(method: string, allowed: readonly string[]): AppError {
  return new AppError('10-400', {
    status: FORM_REFUSAL_STATUSES.methodNotAllowed,
    extraDetails: { reason: `method ${method} is not allowed here`, allow: allowed.join(', ') },
  });
}

/** A body over the service's limit (MAX_BODY_BYTES). */
export function contentTooLarge(limit: number): AppError {
  return new AppError('10-400', {
    status: FORM_REFUSAL_STATUSES.contentTooLarge,
    extraDetails: { reason: `request body exceeds ${limit} bytes` },
  });
}

/** A body in a media type the operation does not take. */
export function unsupportedMediaType(accepted: readonly string[]): AppError {
  return new AppError('10-400', {
    status: FORM_REFUSAL_STATUSES.unsupportedMediaType,
    extraDetails: { reason: `Content-Type must be ${accepted.join(' or ')}` },
  });
}
