import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { routes } from '../../../functions/routes';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let document: any;

beforeAll(async () => {
  env = await startTestTwin();
  const response = await env.anonymous.get('/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
});
afterAll(() => env?.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route in the table', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api/data/v1', description: 'This deployment' }]);
    const documented = Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    );
    expect(documented.sort()).toEqual(routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort());
  });

  it('marks public routes and documents the errors of each route as problems', () => {
    const token = document.paths['/oauth/token'].post;
    expect(token.security).toEqual([]);
    const create = document.paths['/connections'].post;
    expect(create.security).toBeUndefined();
    expect(create['x-required-permission']).toBe('connection:write');
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Connection' });
    expect(create.responses['409'].description).toContain('10-409');
    expect(create.responses['401'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(create.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['Idempotency-Key']);
    const merge = document.paths['/connections/{connection_id}'].patch;
    expect(Object.keys(merge.requestBody.content)).toEqual(['application/merge-patch+json', 'application/json']);
  });

  it('derives schemas from the same zod schemas the handlers validate with', () => {
    const schemas = document.components.schemas;
    expect(schemas.ObjectStoreConnectionCreateRequest.required).toEqual(expect.arrayContaining(['type', 'name', 'auth']));
    expect(schemas.ObjectStoreConnectionCreateRequest.additionalProperties).toBe(false);
    // Responses never describe a secret field.
    const responseSchemas = JSON.stringify(Object.entries(schemas).filter(([id]) => /Connection$|TestResult$/.test(id)));
    for (const secret of ['secret_access_key', 'password', 'client_secret', 'private_key', 'service_account_key_json', 'delta_sharing_profile_content']) {
      expect(responseSchemas).not.toContain(`"${secret}":{`);
    }
    expect(responseSchemas).toContain('"access_key_id":{');
  });

  it('passes the Redocly recommended ruleset without errors or warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const report = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`);
    expect(report).toEqual([]);
  });
});
