import { STATUS_CODES } from 'node:http';
import * as z from 'zod';
import { API_BASE_PATH } from '../config';
import { errorCatalogue, type ErrorCode } from '../errors/catalogue';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem';
import { Problem } from '../model/problem';
import type { BodyType, RouteSpec } from './route';

/**
 * The OpenAPI 3.1 document, derived from the route table and its zod schemas (zod's own JSON
 * Schema output is draft 2020-12, the dialect of OpenAPI 3.1). Named schemas (`.meta({ id })`)
 * become components; request schemas are rendered as input, responses as output.
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
    Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' ? map(inner) : mapRefs(inner, map)]),
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
    const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const { $schema: _dialect, $defs, ...root } = converted;
    const toComponents = (value: unknown) => mapRefs(value, (ref) => ref.replace('#/$defs/', COMPONENTS));
    const definitions = Object.entries(($defs ?? {}) as Record<string, JsonSchema>).map(([id, definition]) => [id, toComponents(definition)] as const);
    const renames = new Map<string, string>();
    for (const [id, definition] of definitions) {
      const existing = this.schemas[id];
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition)) renames.set(id, `${id}${io === 'input' ? 'Input' : 'Output'}`);
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

function parameters(registry: ComponentRegistry, schema: z.ZodObject | undefined, location: 'path' | 'query'): JsonSchema[] {
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

function errorResponses(route: RouteSpec): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...generalErrors(route), ...route.errors]) {
    const status = errorCatalogue[code].status;
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.map((code) => `${code} (${errorCatalogue[code].message})`).join('; ')}`,
          content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      ]),
  );
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
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ]
    : [];
  const allParameters = [...parameters(registry, request.params, 'path'), ...parameters(registry, request.query, 'query'), ...headerParameters];
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
            content: Object.fromEntries((request.bodyTypes ?? ['json']).map((type) => [MEDIA_TYPES[type], { schema: registry.add(body, 'input') }])),
          },
        }
      : {}),
    responses: {
      [String(response.status)]: {
        description: response.description,
        ...(response.body ? { content: { 'application/json': { schema: registry.add(response.body, 'output') } } } : {}),
      },
      ...errorResponses(route),
    },
  };
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
    info: { ...info, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
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
