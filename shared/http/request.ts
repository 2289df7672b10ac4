import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { config } from '../config';
import { AppError, validationError } from '../errors/app-error';
import { contentTooLarge, unsupportedMediaType } from './form-refusals';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import type { BodyType, RouteSpec } from './route';
import { describeIssues } from './validation';

export interface ParsedRequest {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly idempotencyKey: string | undefined;
}

const NO_QUERY = z.strictObject({});
/** An Idempotency-Key: 1 to 255 visible ASCII characters (the OpenAPI document states the same pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const MEDIA_TYPES: Record<BodyType, (mediaType: string) => boolean> = {
  // Exactly the type the OpenAPI document names: other +json types (JSON Patch, JSON:API) mean other things.
  json: (type) => type === 'application/json',
  'merge-patch': (type) => type === 'application/merge-patch+json',
  form: (type) => type === 'application/x-www-form-urlencoded',
};
const MEDIA_TYPE_NAMES: Record<BodyType, string> = {
  json: 'application/json',
  'merge-patch': 'application/merge-patch+json',
  form: 'application/x-www-form-urlencoded',
};

/** A lone UTF-16 surrogate: half a character, which no UTF-8 text decodes to. */
const LONE_SURROGATE = /\p{Cs}/u;
/** What a lenient decoder leaves of bytes that are not UTF-8; no identifier contains it. */
const REPLACEMENT_CHARACTER = '\uFFFD';
const NOT_UTF8 = 'must be valid percent-encoded UTF-8';

/**
 * Path and query values that are not text a client could have percent-encoded. API Gateway
 * passes parameters on decoded (docs/decisions.md), so they are never decoded again here;
 * whatever it passes for a malformed encoding (the raw text, or a lossy decoding) is refused
 * as 10-1400 naming the parameter rather than reaching the store or a connector.
 */
function unreadableParameters(
  values: Readonly<Record<string, string | undefined>> | undefined,
  identifiers: boolean,
): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(values ?? {})) {
    if (LONE_SURROGATE.test(name)) names.push('query');
    else if (
      value !== undefined &&
      (LONE_SURROGATE.test(value) || (identifiers && value.includes(REPLACEMENT_CHARACTER)))
    )
      names.push(name);
  }
  return names;
}

function badRequest(reason: string): AppError {
  return new AppError('10-400', { extraDetails: { reason } });
}

/**
 * Validates path parameters, query and body against the route's schemas. Every violated
 * field of all three is reported at once (10-1400); a body that cannot be read at all is
 * 10-400.
 */
export function parseRequest(route: RouteSpec, event: APIGatewayProxyEventV2): ParsedRequest {
  const problems = Object.create(null) as Record<string, string>;
  let invalid = false;
  const check = (schema: z.ZodType, value: unknown): unknown => {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    invalid = true;
    Object.assign(problems, describeIssues(result.error.issues));
    return undefined;
  };

  const params = route.request.params ? check(route.request.params, event.pathParameters ?? {}) : undefined;
  const query = check(route.request.query ?? NO_QUERY, event.queryStringParameters ?? {});
  let body: unknown;
  if (route.request.body) {
    const raw = readBody(route, event);
    if (raw === undefined) {
      invalid = true;
      problems.body = 'is required';
    } else {
      body = check(route.request.body, raw);
    }
  }

  for (const name of [
    ...unreadableParameters(event.pathParameters, true),
    ...unreadableParameters(event.queryStringParameters, false),
  ]) {
    invalid = true;
    problems[name] = NOT_UTF8;
  }

  let idempotencyKey: string | undefined;
  if (route.request.idempotent) {
    idempotencyKey = event.headers['idempotency-key'];
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      invalid = true;
      problems['Idempotency-Key'] = 'must be 1 to 255 visible ASCII characters';
    }
  }

  if (invalid) throw validationError(problems);
  return { params, query, body, headers: event.headers, idempotencyKey };
}

/** The body decoded by media type, or undefined when there is none. */
function readBody(route: RouteSpec, event: APIGatewayProxyEventV2): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  const limit = config.maxBodyBytes;
  if (bytes.length > limit) throw contentTooLarge(limit);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;

  const accepted = route.request.bodyTypes ?? ['json'];
  const mediaType = (event.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const bodyType = accepted.find((type) => MEDIA_TYPES[type](mediaType));
  if (!bodyType) {
    throw unsupportedMediaType(accepted.map((type) => MEDIA_TYPE_NAMES[type]));
  }
  if (bodyType === 'form') return Object.fromEntries(new URLSearchParams(text));
  // Checked on the raw text, before the parser or any recursive code sees the value.
  if (exceedsJsonDepth(text))
    throw validationError({ body: `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels` });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's message quotes the input, which may hold a secret: report the position only.
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    throw badRequest(`request body is not valid JSON${position ? ` (error at position ${position})` : ''}`);
  }
}
