import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { config } from '../config';
import { AppError, validationError } from '../errors/app-error';
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
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const MEDIA_TYPES: Record<BodyType, (mediaType: string) => boolean> = {
  json: (type) => type === 'application/json' || (type.endsWith('+json') && type !== 'application/merge-patch+json'),
  'merge-patch': (type) => type === 'application/merge-patch+json',
  form: (type) => type === 'application/x-www-form-urlencoded',
};
const MEDIA_TYPE_NAMES: Record<BodyType, string> = {
  json: 'application/json',
  'merge-patch': 'application/merge-patch+json',
  form: 'application/x-www-form-urlencoded',
};

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
  if (bytes.length > limit) throw badRequest(`request body exceeds ${limit} bytes`);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;

  const accepted = route.request.bodyTypes ?? ['json'];
  const mediaType = (event.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const bodyType = accepted.find((type) => MEDIA_TYPES[type](mediaType));
  if (!bodyType) {
    throw badRequest(`Content-Type must be ${accepted.map((type) => MEDIA_TYPE_NAMES[type]).join(' or ')}`);
  }
  if (bodyType === 'form') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's message quotes the input, which may hold a secret: report the position only.
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    throw badRequest(`request body is not valid JSON${position ? ` (error at position ${position})` : ''}`);
  }
}
