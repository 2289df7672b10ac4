import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import * as z from 'zod';
import { routes } from '../../../functions/routes';
import { startTestTwin, type TestTwin } from '../../support/harness';

/** The parts of an OpenAPI document these tests read; everything else passes through. */
const Operation = z.looseObject({
  operationId: z.string(),
  security: z.array(z.unknown()).optional(),
  'x-required-permission': z.string().optional(),
  parameters: z.array(z.looseObject({ name: z.string() })).optional(),
  requestBody: z.looseObject({ content: z.record(z.string(), z.unknown()) }).optional(),
  responses: z.record(
    z.string(),
    z.looseObject({
      description: z.string(),
      content: z.record(z.string(), z.looseObject({ schema: z.unknown() })).optional(),
    }),
  ),
});
const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  servers: z.array(z.unknown()),
  paths: z.record(z.string(), z.record(z.string(), Operation)),
  components: z.looseObject({
    schemas: z.record(
      z.string(),
      z.looseObject({ required: z.array(z.string()).optional(), additionalProperties: z.unknown().optional() }),
    ),
  }),
});

let env: TestTwin;
/** The document as served, for the linter. */
let served: string;
let document: z.infer<typeof OpenApiDocument>;

beforeAll(async () => {
  env = await startTestTwin();
  const response = await env.anonymous.call('getOpenApiDocument');
  expect(response.status).toBe(200);
  served = response.text;
  document = OpenApiDocument.parse(response.body);
});
afterAll(() => env?.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route in the table', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api/data/v1', description: 'This deployment' }]);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(
        ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
      ),
    );
    expect(documented.sort()).toEqual(
      routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort(),
    );
  });

  it('marks public routes and documents the errors of each route as problems', () => {
    const token = document.paths['/oauth/token']?.post;
    expect(token?.security).toEqual([]);
    const create = document.paths['/connections']?.post;
    expect(create).toBeDefined();
    expect(create?.security).toBeUndefined();
    expect(create?.['x-required-permission']).toBe('connection:write');
    expect(create?.responses['201']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Connection',
    });
    expect(create?.responses['409']?.description).toContain('10-409');
    expect(create?.responses['401']?.content?.['application/problem+json']?.schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    expect(create?.parameters?.map((parameter) => parameter.name)).toEqual(['Idempotency-Key']);
    const merge = document.paths['/connections/{connection_id}']?.patch;
    expect(Object.keys(merge?.requestBody?.content ?? {})).toEqual([
      'application/merge-patch+json',
      'application/json',
    ]);
  });

  it('lists 30-3019 and 30-3020 on every route that opens a stored delta_sharing profile', () => {
    const opening = [
      document.paths['/connections/{connection_id}/test']?.post,
      document.paths['/connections/{connection_id}/tables']?.get,
      document.paths['/connections/{connection_id}/tables/{table_name}']?.get,
    ];
    for (const operation of opening) {
      expect(operation, 'operation documented').toBeDefined();
      const serverErrors = operation?.responses['500']?.description ?? '';
      expect(serverErrors, operation?.operationId).toContain('30-3019 (');
      expect(serverErrors, operation?.operationId).toContain('30-3020 (');
    }
  });

  it('derives schemas from the same zod schemas the handlers validate with', () => {
    const schemas = document.components.schemas;
    expect(schemas.ObjectStoreConnectionCreateRequest?.required).toEqual(
      expect.arrayContaining(['type', 'name', 'auth']),
    );
    expect(schemas.ObjectStoreConnectionCreateRequest?.additionalProperties).toBe(false);
    // Responses never describe a secret field.
    const responseSchemas = JSON.stringify(
      Object.entries(schemas).filter(([id]) => /Connection$|TestResult$/.test(id)),
    );
    for (const secret of [
      'secret_access_key',
      'password',
      'client_secret',
      'private_key',
      'service_account_key_json',
      'delta_sharing_profile_content',
    ]) {
      expect(responseSchemas).not.toContain(`"${secret}":{`);
    }
    expect(responseSchemas).toContain('"access_key_id":{');
  });

  it('passes the Redocly recommended ruleset without errors or warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: served, absoluteRef: 'openapi.json', config });
    // no-ambiguous-paths compares paths without their methods: two paths that share no method
    // (GET /exports/direct/{job_id}, POST /exports/{export_id}/cancel) never route one request two ways.
    const methods = (path: string) => new Set(Object.keys(document.paths[path] ?? {}));
    const routable = problems.filter((problem) => {
      if (problem.ruleId !== 'no-ambiguous-paths') return true;
      const [a = '', b = ''] = [...problem.message.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
      return [...methods(a)].some((method) => methods(b).has(method));
    });
    const report = routable.map(
      (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`,
    );
    expect(report).toEqual([]);
  });
});
