import { STATUS_CODES } from 'node:http';
import * as z from 'zod';
import { API_BASE_PATH, config } from '../config';
import { errorCatalogue, type ErrorCode } from '../errors/catalogue';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem';
import { documentedSchemaOf } from '../model/merge-patch-schema';
import { Problem } from '../errors/problem-body';
import { FORM_REFUSAL_STATUSES } from './form-refusals';
import { correctRendering } from './openapi-schema';
import { MAX_JSON_DEPTH } from './json-depth';
import { IDEMPOTENCY_KEY } from './request';
import type { BodyType, RouteSpec } from './route';

/**
 * The OpenAPI 3.1 document, derived from the route table and its zod schemas (zod's own JSON
 * Schema output is draft 2020-12, the dialect of OpenAPI 3.1). Named schemas (`.meta({ id })`)
 * become components; request schemas are rendered as input, responses as output, both
 * corrected where zod's rendering says less than the schema enforces (openapi-schema.ts). A
 * request body may be shown as another schema (a merge patch: model/merge-patch-schema.ts).
 * The document refuses what the service refuses: test/integration/api/contract.test.ts.
 */
type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

const MEDIA_TYPES: Record<BodyType, string> = {
  json: 'application/json',
  'merge-patch': 'application/merge-patch+json',
  form: 'application/x-www-form-urlencoded',
};

/** Replaces every "$ref" string through `map`, leaving the rest as it is. */
function mapRefs(value: unknown, map: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, map));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? map(inner) : mapRefs(inner, map),
    ]),
  );
}

const COMPONENTS = '#/components/schemas/';

class ComponentRegistry {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * A schema as an inline JSON Schema or a $ref, moving named parts into components. A named
   * part already registered with a different rendering (input vs output) gets a suffix.
   */
  add(schema: z.ZodType, io: Io): JsonSchema {
    const shown = documentedSchemaOf(schema);
    const converted = z.toJSONSchema(shown, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      override: correctRendering,
    }) as JsonSchema;
    const { $schema: _dialect, $defs, ...root } = converted;
    const toComponents = (value: unknown) => mapRefs(value, (ref) => ref.replace('#/$defs/', COMPONENTS));
    const definitions = Object.entries(($defs ?? {}) as Record<string, JsonSchema>).map(
      ([id, definition]) => [id, toComponents(definition)] as const,
    );
    const renames = new Map<string, string>();
    for (const [id, definition] of definitions) {
      const existing = this.schemas[id];
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition))
        renames.set(id, `${id}${io === 'input' ? 'Input' : 'Output'}`);
    }
    const renamed = (value: unknown) =>
      mapRefs(value, (ref) => {
        const id = ref.startsWith(COMPONENTS) ? ref.slice(COMPONENTS.length) : undefined;
        return id !== undefined && renames.has(id) ? `${COMPONENTS}${renames.get(id)}` : ref;
      }) as JsonSchema;
    for (const [id, definition] of definitions) this.schemas[renames.get(id) ?? id] = renamed(definition);
    return renamed(toComponents(root));
  }
}

function parameters(
  registry: ComponentRegistry,
  schema: z.ZodObject | undefined,
  location: 'path' | 'query',
): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const rendered = registry.add(field as z.ZodType, 'input');
    const { description, ...fieldSchema } = rendered;
    return {
      name,
      in: location,
      required: location === 'path' || !(field as z.ZodType).safeParse(undefined).success,
      ...(description === undefined ? {} : { description }),
      schema: fieldSchema,
    };
  });
}

function generalErrors(route: RouteSpec): ErrorCode[] {
  const codes: ErrorCode[] = ['10-400', '10-1400', '10-500'];
  if (route.permission !== null) codes.push('10-401', '10-403');
  return codes;
}

const PROBLEM_CONTENT = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } };

/** Answers about the request's form (10-400 with their own status), on the operations they can reach. */
function formRefusals(route: RouteSpec): Record<string, JsonSchema> {
  const { methodNotAllowed, contentTooLarge, unsupportedMediaType } = FORM_REFUSAL_STATUSES;
  const refusals: Record<string, JsonSchema> = {
    [methodNotAllowed]: {
      description: 'Method Not Allowed: 10-400, for a method this path does not offer',
      headers: { Allow: { description: 'The methods this path offers', schema: { type: 'string' } } },
      content: PROBLEM_CONTENT,
    },
  };
  if (!route.request.body) return refusals;
  refusals[contentTooLarge] = {
    description: `Content Too Large: 10-400, for a body over ${config.maxBodyBytes} bytes. Over 10 MiB API Gateway answers before the service, with its own body {"message": "Request Entity Too Large"}`,
    content: {
      ...PROBLEM_CONTENT,
      'application/json': {
        schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      },
    },
  };
  refusals[unsupportedMediaType] = {
    description: 'Unsupported Media Type: 10-400, for a body in a media type the operation does not list',
    content: PROBLEM_CONTENT,
  };
  return refusals;
}

function errorResponses(route: RouteSpec): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...generalErrors(route), ...route.errors]) {
    const status = errorCatalogue[code].status;
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  const byCode = Object.fromEntries(
    [...byStatus.entries()].map(([status, codes]) => [
      String(status),
      {
        description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.map((code) => `${code} (${errorCatalogue[code].message})`).join('; ')}`,
        content: PROBLEM_CONTENT,
      },
    ]),
  );
  const all = { ...byCode, ...formRefusals(route) };
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => Number(a) - Number(b)));
}

function operation(registry: ComponentRegistry, route: RouteSpec): JsonSchema {
  const { request, response } = route;
  const headerParameters = request.idempotent
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a retried create return the first result instead of creating twice (kept 24 hours)',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
        },
      ]
    : [];
  const allParameters = [
    ...parameters(registry, request.params, 'path'),
    ...parameters(registry, request.query, 'query'),
    ...headerParameters,
  ];
  const body = request.body;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [route.tag],
    ...(route.permission === null ? { security: [] } : { 'x-required-permission': route.permission }),
    ...(allParameters.length > 0 ? { parameters: allParameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              (request.bodyTypes ?? ['json']).map((type) => [
                MEDIA_TYPES[type],
                { schema: registry.add(body, 'input') },
              ]),
            ),
          },
        }
      : {}),
    responses: {
      [String(response.status)]: {
        description: response.description,
        ...(response.body
          ? { content: { 'application/json': { schema: registry.add(response.body, 'output') } } }
          : {}),
      },
      ...errorResponses(route),
    },
  };
}

/** What every operation enforces that its schemas cannot say. */
function wireRules(): string {
  return [
    'Path and query integers are written as decimal numerals.',
    'A query parameter the operation does not list is refused (400, 10-1400).',
    `Request bodies are at most ${config.maxBodyBytes} bytes (413 above) and nest objects and arrays at most ${MAX_JSON_DEPTH} levels (400, 10-1400 deeper), in the media types the operation lists (415 otherwise).`,
    'Text members trimmed by the service say so: their bounds apply to the text without its surrounding white space.',
  ].join(' ');
}

export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  info: { title: string; version: string; description: string },
  tagDescriptions: Readonly<Record<string, string>>,
): JsonSchema {
  const registry = new ComponentRegistry();
  registry.add(Problem, 'output');
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(registry, route);
  }
  const tags = [...new Set(routes.map((route) => route.tag))].sort().map((name) => {
    const description = tagDescriptions[name];
    if (description === undefined) throw new Error(`route tag ${name} has no description`);
    return { name, description };
  });
  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description: `${info.description}\n\n${wireRules()}`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: API_BASE_PATH, description: 'This deployment' }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      schemas: registry.schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Access token from POST /oauth/token (client credentials)',
        },
      },
    },
  };
}
