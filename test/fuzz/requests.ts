/**
 * The request generator of the fuzz suite. It reads the served OpenAPI document, so every
 * operation a later change adds is fuzzed without anyone writing a case: for each operation
 * and each kind of hostility (MUTATIONS), an arbitrary of requests that start from a value
 * fitting the operation's schemas and spoil one thing.
 */
import fc from 'fast-check';
import {
  BAD_PATH_SEGMENTS,
  BAD_QUERY_VALUES,
  badTokens,
  deepDepth,
  deepJsonText,
  hostileValue,
  MALFORMED_JSON,
  nastyString,
  unknownKey,
  unknownQueryName,
  WRONG_MEDIA_TYPES,
} from './hostile';
import { declaredFieldNames, percentEncode, slots, updateAt, valueAt, withMember } from './edit';
import { isObject, operationsOf, operationsWithoutStart, resolverOf, type FuzzOperation } from './operations';
import { schemaValue, type FieldHints, type JsonSchema, type SchemaContext } from './schema-values';

/** What the fuzzer does to a request. */
export const MUTATIONS = [
  'valid-shaped',
  'hostile-field',
  'unknown-field',
  'wrong-body-type',
  'malformed-json',
  'deep-json',
  'oversize-body',
  'wrong-media-type',
  'bad-path',
  'bad-query',
  'wrong-method',
  'bad-token',
  'odd-headers',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface FuzzRequest {
  readonly operationId: string;
  readonly mutation: Mutation;
  readonly method: string;
  /** Under the API base path, with the raw (as sent) query string. */
  readonly path: string;
  /** The request text; absent for no body. */
  readonly body?: string;
  readonly contentType?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** 'caller' uses the fuzzing client's own valid token; null sends none. */
  readonly token: 'caller' | string | null;
}

export interface FuzzContext {
  /** Known-good values by field or parameter name: ids that exist, the local S3 endpoint... */
  readonly hints: FieldHints;
  /** Hints that replace `hints` for DELETE operations: entities of their own, so the fixtures outlive the run. */
  readonly deleteHints: FieldHints;
  /** A real token of the caller, which bad tokens are forged from. */
  readonly token: string;
  /**
   * A valid request of every operation that takes a body, by operationId (test/fuzz/bodies.ts):
   * the start most mutations spoil, so they reach the checks behind schema validation.
   */
  readonly starts: Readonly<Record<string, StartingRequest>>;
}

/** Path parameters and a body that pass validation. */
export interface StartingRequest {
  readonly params?: Readonly<Record<string, number | string>>;
  readonly body: unknown;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;
const HAS_NO_BODY = new Set(['GET', 'HEAD']);
/**
 * API Gateway refuses a request line and headers over 10,240 bytes itself (HTTP API quota),
 * with its own answer, before any function runs; the twin's HTTP server stops at 16 KiB.
 * Paths (4,000) and the longest forged token (5,000) keep requests under both, so every
 * answer judged is the service's.
 */
const MAX_PATH_CHARS = 4_000;
/** Stands where the deep value goes, replaced in the body text (no generator emits it). */
const DEEP_MARKER = '@@fuzz-deep-value@@';
/** Requests above the service's MAX_BODY_BYTES (256 KiB) and below API Gateway's 10 MiB. */
const OVERSIZE_BYTES = 300 * 1024;

/** The body text for a media type: form bodies flatten to name=value pairs. */
function encodeBody(value: unknown, mediaType: string): string {
  if (mediaType !== 'application/x-www-form-urlencoded') return JSON.stringify(value) ?? 'null';
  const form = new URLSearchParams();
  if (isObject(value))
    for (const [key, item] of Object.entries(value))
      form.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  return form.toString();
}

interface Parts {
  readonly pathValues: Readonly<Record<string, string>>;
  readonly query: readonly (readonly [string, string])[];
  readonly mediaType: string | undefined;
  readonly body: unknown;
  readonly idempotencyKey: string | undefined;
}

function fillPath(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '1');
}

function queryText(pairs: readonly (readonly [string, string])[]): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

/**
 * Well-formed parts of a request of `operation`: the start of every mutation. An operation with a
 * body starts from its starting request most of the time, and from values its schemas generate
 * otherwise. With `hintedPathsOnly`, a path parameter that has hints takes one of them: generated
 * ids are small integers, which name the fixtures (a DELETE must not remove them).
 */
function validParts(
  operation: FuzzOperation,
  schemas: SchemaContext,
  start: StartingRequest | undefined,
  hintedPathsOnly: boolean,
): fc.Arbitrary<Parts> {
  const text = (name: string, schema: JsonSchema, hintsOnly = false) => {
    const hints = Object.hasOwn(schemas.hints, name) ? schemas.hints[name]! : [];
    const generated = schemaValue(schema, schemas).map((value) =>
      percentEncode(typeof value === 'string' ? value : JSON.stringify(value)),
    );
    if (hints.length === 0) return generated;
    const hinted = fc.constantFrom(...hints.map(String));
    return hintsOnly ? hinted : fc.oneof({ arbitrary: hinted, weight: 3 }, { arbitrary: generated, weight: 1 });
  };
  const pathValues = fc.record(
    Object.fromEntries(
      operation.pathParameters.map((parameter) => [
        parameter.name,
        text(parameter.name, parameter.schema, hintedPathsOnly),
      ]),
    ),
  );
  const query = fc.tuple(
    ...operation.queryParameters.map((parameter) =>
      parameter.required
        ? text(parameter.name, parameter.schema).map((value) => [[parameter.name, value] as const])
        : fc
            .option(text(parameter.name, parameter.schema), { nil: undefined })
            .map((value) => (value === undefined ? [] : [[parameter.name, value] as const])),
    ),
  );
  const mediaTypes = Object.keys(operation.bodies);
  const mediaType = mediaTypes.length === 0 ? fc.constant(undefined) : fc.constantFrom(...mediaTypes);
  const generatedBody = (type: string | undefined) =>
    type === undefined ? fc.constant(undefined) : schemaValue(operation.bodies[type], schemas);
  const idempotencyKey = operation.idempotent
    ? fc.option(fc.stringMatching(/^[A-Za-z0-9-]{8,40}$/), { nil: undefined })
    : fc.constant(undefined);
  const generated = fc
    .record({ pathValues, query, mediaType, idempotencyKey })
    .chain((parts) => generatedBody(parts.mediaType).map((body) => ({ ...parts, query: parts.query.flat(), body })));
  if (start === undefined) return generated;
  const fromStart = fc.record({ pathValues, query, mediaType, idempotencyKey }).map((parts) => ({
    ...parts,
    pathValues: {
      ...parts.pathValues,
      ...Object.fromEntries(Object.entries(start.params ?? {}).map(([name, value]) => [name, String(value)])),
    },
    query: parts.query.flat(),
    body: start.body,
  }));
  return fc.oneof({ arbitrary: fromStart, weight: 4 }, { arbitrary: generated, weight: 1 });
}

function request(
  operation: FuzzOperation,
  mutation: Mutation,
  parts: Parts,
  overrides: Partial<FuzzRequest> & { readonly bodyText?: string } = {},
): FuzzRequest {
  const { bodyText, ...rest } = overrides;
  const method = rest.method ?? operation.method;
  const text = bodyText ?? (parts.mediaType === undefined ? undefined : encodeBody(parts.body, parts.mediaType));
  const sendsBody = text !== undefined && !HAS_NO_BODY.has(method);
  return {
    operationId: operation.operationId,
    mutation,
    method,
    path: `${fillPath(operation.path, parts.pathValues)}${queryText(parts.query)}`.slice(0, MAX_PATH_CHARS),
    ...(sendsBody ? { body: text, contentType: rest.contentType ?? parts.mediaType ?? 'application/json' } : {}),
    headers: parts.idempotencyKey === undefined ? {} : { 'idempotency-key': parts.idempotencyKey },
    token: 'caller',
    ...rest,
  };
}

/** What every case of one document draws on. */
interface Generation {
  readonly operations: readonly FuzzOperation[];
  readonly context: FuzzContext;
  readonly schemas: SchemaContext;
  /** Member names of the document's schemas: a field one schema declares is unknown to another. */
  readonly fieldNames: fc.Arbitrary<string>;
}

/** Requests of `operation` spoiled the way `mutation` says; null when it does not apply. */
function mutatedRequests(
  operation: FuzzOperation,
  mutation: Mutation,
  { operations, context, schemas, fieldNames }: Generation,
): fc.Arbitrary<FuzzRequest> | null {
  const hasBody = Object.keys(operation.bodies).length > 0;
  const deletes = operation.method === 'DELETE';
  const hints = deletes ? { ...schemas.hints, ...context.deleteHints } : schemas.hints;
  const start = validParts(operation, { ...schemas, hints }, context.starts[operation.operationId], deletes);
  const jsonType = Object.keys(operation.bodies).find((type) => type.includes('json'));
  switch (mutation) {
    case 'valid-shaped':
      return start.map((parts) => request(operation, mutation, parts));
    case 'hostile-field':
      if (!hasBody) return null;
      return fc.tuple(start, fc.nat(), hostileValue).map(([parts, pick, hostile]) => {
        const places = slots(parts.body);
        return request(operation, mutation, {
          ...parts,
          body: updateAt(parts.body, places[pick % places.length]!, () => hostile),
        });
      });
    case 'unknown-field':
      if (!hasBody) return null;
      return fc
        .tuple(start, fc.nat(), fc.oneof(unknownKey, fieldNames), hostileValue)
        .map(([parts, pick, key, value]) => {
          const places = slots(parts.body).filter((path) => isObject(valueAt(parts.body, path)));
          const place = places.length === 0 ? [] : places[pick % places.length]!;
          return request(operation, mutation, {
            ...parts,
            body: updateAt(parts.body, place, (current) => withMember(current, key, value)),
          });
        });
    case 'wrong-body-type':
      if (!hasBody) return null;
      return fc
        .tuple(
          start,
          fc.oneof(
            fc.constantFrom<unknown>(null, 0, 'text', true, []),
            fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
          ),
        )
        .map(([parts, body]) => request(operation, mutation, { ...parts, body }));
    case 'malformed-json':
      if (!jsonType) return null;
      return fc.tuple(start, fc.oneof(fc.constantFrom(...MALFORMED_JSON), fc.nat())).map(([parts, malformed]) => {
        const whole = JSON.stringify(parts.body) ?? '';
        const bodyText =
          typeof malformed === 'string' ? malformed : whole.slice(0, malformed % Math.max(1, whole.length));
        return request(operation, mutation, { ...parts, mediaType: jsonType }, { bodyText, contentType: jsonType });
      });
    case 'deep-json':
      if (!jsonType) return null;
      // In place of a value the schema checks, or under another member (which a merge patch passes on to be merged).
      return fc
        .tuple(
          start,
          fc.nat(),
          deepDepth,
          fc.constantFrom('array' as const, 'object' as const),
          fc.option(fieldNames, { nil: undefined }),
        )
        .map(([parts, pick, depth, shape, member]) => {
          const places = slots(parts.body);
          const marked =
            member !== undefined && isObject(parts.body)
              ? withMember(parts.body, member, DEEP_MARKER)
              : updateAt(parts.body, places[pick % places.length]!, () => DEEP_MARKER);
          const bodyText = (JSON.stringify(marked) ?? '').replace(
            JSON.stringify(DEEP_MARKER),
            deepJsonText(depth, shape),
          );
          return request(operation, mutation, parts, { bodyText, contentType: jsonType });
        });
    case 'oversize-body':
      if (!jsonType) return null;
      return start.map((parts) =>
        request(operation, mutation, parts, {
          bodyText: JSON.stringify({ padding: 'x'.repeat(OVERSIZE_BYTES) }),
          contentType: jsonType,
        }),
      );
    case 'wrong-media-type': {
      if (!hasBody) return null;
      const accepted = new Set(Object.keys(operation.bodies));
      return fc
        .tuple(start, fc.constantFrom(...WRONG_MEDIA_TYPES.filter((type) => !accepted.has(type))))
        .map(([parts, contentType]) => request(operation, mutation, parts, { contentType }));
    }
    case 'bad-path':
      if (operation.pathParameters.length === 0) return null;
      return fc
        .tuple(
          start,
          fc.constantFrom(...operation.pathParameters.map((parameter) => parameter.name)),
          fc.oneof(fc.constantFrom(...BAD_PATH_SEGMENTS), nastyString.map(percentEncode)),
        )
        .map(([parts, name, value]) =>
          request(operation, mutation, { ...parts, pathValues: { ...parts.pathValues, [name]: value } }),
        );
    case 'bad-query': {
      const names = operation.queryParameters.map((parameter) => parameter.name);
      const name = names.length > 0 ? fc.oneof(fc.constantFrom(...names), unknownQueryName) : unknownQueryName;
      const value = fc.oneof(fc.constantFrom(...BAD_QUERY_VALUES), nastyString.map(percentEncode));
      return fc
        .tuple(start, fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 3 }))
        .map(([parts, pairs]) => request(operation, mutation, { ...parts, query: [...parts.query, ...pairs] }));
    }
    case 'wrong-method': {
      const declared = new Set(
        operations.filter((other) => other.path === operation.path).map((other) => other.method),
      );
      const others = METHODS.filter((method) => !declared.has(method));
      return fc
        .tuple(start, fc.constantFrom(...others))
        .map(([parts, method]) => request(operation, mutation, parts, { method }));
    }
    case 'bad-token':
      return fc.tuple(start, fc.constantFrom(...badTokens(context.token)), fc.boolean()).map(([parts, token, basic]) =>
        basic
          ? request(operation, mutation, parts, {
              token: null,
              headers: { authorization: `Basic ${Buffer.from(`${token ?? ''}:x`).toString('base64')}` },
            })
          : request(operation, mutation, parts, { token }),
      );
    case 'odd-headers':
      return fc
        .tuple(
          start,
          fc.record({
            'idempotency-key': fc.constantFrom('', ' ', 'é', 'a b', 'k'.repeat(300), '\u00ff'),
            accept: fc.constantFrom('application/xml', 'text/html', '*/*;q=0', 'application/json;q=0'),
            'x-forwarded-for': fc.constantFrom('127.0.0.1', '169.254.169.254', 'not an address'),
          }),
        )
        .map(([parts, headers]) => request(operation, mutation, parts, { headers }));
  }
}

export interface FuzzCase {
  readonly operationId: string;
  readonly mutation: Mutation;
  readonly requests: fc.Arbitrary<FuzzRequest>;
}

/**
 * Every (operation, mutation) pair of the document that applies, with its requests. Throws when
 * an operation takes a body and has no starting request: fuzzed from generated values alone, it
 * would stop at schema validation.
 */
export function fuzzCases(document: unknown, context: FuzzContext): FuzzCase[] {
  const operations = operationsOf(document);
  const unstarted = operationsWithoutStart(operations, context.starts);
  if (unstarted.length > 0)
    throw new Error(`operations with a body but no starting request (test/fuzz/bodies.ts): ${unstarted.join(', ')}`);
  const generation: Generation = {
    operations,
    context,
    schemas: { resolve: resolverOf(document), hints: context.hints },
    fieldNames: fc.constantFrom(...declaredFieldNames(document)),
  };
  return operations.flatMap((operation) =>
    MUTATIONS.flatMap((mutation) => {
      const requests = mutatedRequests(operation, mutation, generation);
      return requests ? [{ operationId: operation.operationId, mutation, requests }] : [];
    }),
  );
}

/**
 * The fuzz plan: `perCase` requests of every case, drawn reproducibly from `seed`. Lazy, so
 * a long run does not hold its oversize bodies all at once.
 */
export function* fuzzPlan(
  cases: readonly FuzzCase[],
  options: { readonly seed: number; readonly perCase: number },
): Generator<FuzzRequest> {
  for (let round = 0; round < options.perCase; round += 1) {
    for (const [index, { requests }] of cases.entries()) {
      const [request] = fc.sample(requests, { seed: options.seed + round * cases.length + index, numRuns: 1 });
      if (request) yield request;
    }
  }
}
