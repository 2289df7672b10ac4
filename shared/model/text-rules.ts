import type * as z from 'zod';

/**
 * Character-set rules for text that reaches other systems: credentials end up in HTTP
 * headers, request signatures and token requests, paths and tokens in store requests. A
 * control character, NUL or unpaired surrogate belongs to none of them and makes an HTTP
 * client throw, so such text is refused at the request schema (10-1400 naming the field).
 * The patterns mean the same with and without the u flag, since the OpenAPI document carries
 * them as they are.
 */
const NO_CONTROL = /^(?:[^\x00-\x1F\x7F-\x9F\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
const VISIBLE_ASCII = /^[\x21-\x7E]*$/;

/** Any text a person types, Unicode included, without control characters or unpaired surrogates. */
export const withoutControls = <T extends z.ZodString>(schema: T) =>
  schema.regex(NO_CONTROL, 'must not contain control characters or unpaired surrogates');

/** Printable ASCII, space to tilde: what OAuth client ids, secrets and scopes (RFC 6749 appendix A) and S3 secret keys are made of. */
export const printableAscii = <T extends z.ZodString>(schema: T) =>
  schema.regex(PRINTABLE_ASCII, 'must contain only printable ASCII characters (space to ~)');

/** Printable ASCII without spaces: opaque tokens a store hands out. */
export const visibleAscii = <T extends z.ZodString>(schema: T) =>
  schema.regex(VISIBLE_ASCII, 'must contain only printable ASCII characters other than space');
