import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorCatalogue } from '../../../shared/errors/catalogue';
import { logger } from '../../../shared/log';
import type { Problem } from '../../../shared/errors/problem-body';
import { unchecked, type ApiClient, type ApiResponse } from '../../support/api-client';
import { connectionCases } from '../../support/connections';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let api: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  api = env.admin;
});
afterAll(() => env?.close());

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON object of an answer as sent: the Problem schema would strip a member it does not name. */
function wireObject(response: ApiResponse<unknown>): Record<string, unknown> {
  if (!isRecord(response.json)) throw new Error(`not a JSON object: ${response.text}`);
  return response.json;
}

/** Every failure: RFC 7807 with a catalogue code and matching status. */
function expectProblem(response: ApiResponse<unknown>, status: number, code: string, instance: string): Problem {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const wire = wireObject(response);
  expect(Object.keys(wire).sort()).toEqual(
    [
      'code',
      'detail',
      'instance',
      'status',
      'timestamp',
      'title',
      'traceId',
      'type',
      ...('extraDetails' in wire ? ['extraDetails'] : []),
    ].sort(),
  );
  const problem = response.problem;
  expect(problem).toMatchObject({ status, code, instance, type: `/api/data/v1/errors/${code}` });
  expect(Date.parse(problem.timestamp)).not.toBeNaN();
  expect(problem.traceId).toBe(response.headers.get('x-trace-id'));
  return problem;
}

describe('routing', () => {
  it('10-404 for an unknown route, also outside the API base path', async () => {
    for (const path of ['/nothing-here', '/connections/1/nothing']) {
      const problem = expectProblem(await api.raw('GET', path), 404, '10-404', `/api/data/v1${path}`);
      expect(problem.title).toBe('Not Found');
    }
    const root = await fetch(env.twin.apiUrl.replace('/api/data/v1', '/'));
    expect(root.status).toBe(404);
    expect(((await root.json()) as { code: string }).code).toBe('10-404');
  });

  it('405 with code 10-400 and an Allow header for a wrong method', async () => {
    const response = await api.raw('DELETE', '/connections');
    const problem = expectProblem(response, 405, '10-400', '/api/data/v1/connections');
    expect(problem.title).toBe('Method Not Allowed');
    expect(response.headers.get('allow')).toBe('POST, GET');
  });

  it('10-1400 for an id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-3', '1.5', '99999999999999999']) {
      const problem = expectProblem(
        await api.call('getConnection', { params: { connection_id: id } }),
        400,
        '10-1400',
        `/api/data/v1/connections/${id}`,
      );
      expect(problem.extraDetails?.connection_id).toMatch(/^(must be a positive integer|must be ≥ 1|must be ≤ \d+)$/);
    }
  });

  it('describes every catalogue code at its problem type URI', async () => {
    const response = await env.anonymous.call('getErrorType', { params: { code: '30-1507' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      code: '30-1507',
      status: 409,
      title: 'Conflict',
      message: errorCatalogue['30-1507'].message,
    });
    // Compared on the wire too: the response schema would strip a field it does not name.
    expect(response.json).toEqual(response.body);
    expectProblem(
      await env.anonymous.call('getErrorType', { params: { code: '99-9999' } }),
      404,
      '10-404',
      '/api/data/v1/errors/99-9999',
    );
  });
});

describe('request bodies', () => {
  const [objectStore] = connectionCases('https://s3.example.com');

  it('10-400 for malformed JSON, without echoing it', async () => {
    const response = await api.raw('POST', '/connections', {
      body: '{"name": "x", "auth": {"secret_access_key": "do-not-echo"',
      contentType: 'application/json',
    });
    const problem = expectProblem(response, 400, '10-400', '/api/data/v1/connections');
    expect(problem.extraDetails?.reason).toMatch(/^request body is not valid JSON/);
    expect(response.text).not.toContain('do-not-echo');
  });

  it('415 10-400 for a body that is not JSON at all, or JSON of another media type', async () => {
    for (const contentType of ['text/plain', 'application/json-patch+json', 'application/vnd.api+json']) {
      const response = await api.raw('POST', '/connections', {
        body: contentType === 'text/plain' ? 'name=x' : JSON.stringify(objectStore!.request),
        contentType,
      });
      expect(expectProblem(response, 415, '10-400', '/api/data/v1/connections').extraDetails?.reason, contentType).toBe(
        'Content-Type must be application/json',
      );
    }
  });

  it('413 10-400 for an oversized body', async () => {
    const huge = { ...objectStore!.request, description: 'x'.repeat(300 * 1024) };
    const problem = expectProblem(
      await api.call('createConnection', { body: huge }),
      413,
      '10-400',
      '/api/data/v1/connections',
    );
    expect(problem.extraDetails?.reason).toBe('request body exceeds 262144 bytes');
  });

  it('10-1400 naming every wrong field: types, unknown enum values, unknown fields, missing fields', async () => {
    const response = await api.call('createConnection', {
      body: unchecked({
        ...objectStore!.request,
        name: 42,
        read: 'yes',
        tags: 'a',
        extra: 1,
        auth: { ...objectStore!.request.auth, endpoint: undefined },
      }),
    });
    const problem = expectProblem(response, 400, '10-1400', '/api/data/v1/connections');
    expect(problem.extraDetails).toEqual({
      name: 'must be a string',
      read: 'must be true or false',
      tags: 'must be an array',
      extra: 'is not a known field',
      'auth.endpoint': 'is required',
    });
    const unknownType = await api.call('createConnection', {
      body: unchecked({ ...objectStore!.request, type: 'ftp' }),
    });
    expect(unknownType.problem.extraDetails).toEqual({
      type: 'must be one of: object_store, warehouse, delta_sharing, pricing_dim, cloud_store, analytics_db, pricing_sdk',
    });
    const unknownAuth = await api.call('createConnection', {
      body: { ...objectStore!.request, auth: { ...objectStore!.request.auth, auth_type: 'password' } },
    });
    expect(unknownAuth.problem.extraDetails).toEqual({ 'auth.auth_type': 'must be one of: secret_key' });
    const empty = await api.call('createConnection', { body: unchecked(undefined) });
    expect(empty.problem.extraDetails).toEqual({ body: 'is required' });
    const array = await api.call('createConnection', { body: unchecked([1, 2]) });
    expect(array.problem.code).toBe('10-1400');
    const prototypeKey = await api.raw('POST', '/connections', {
      body: JSON.stringify({ ...objectStore!.request }).replace(/}$/, ',"__proto__":[]}'),
      contentType: 'application/json',
    });
    expect(prototypeKey.status).toBe(400);
    // Read from the wire: parsing into a fresh object would make "__proto__" its prototype, not a member.
    const extraDetails = wireObject(prototypeKey).extraDetails;
    expect(isRecord(extraDetails) && Object.entries(extraDetails)).toEqual([['__proto__', 'is not a known field']]);
  });

  it('never answers 500 to arbitrary request bodies (bounded fuzz)', async () => {
    const valid = objectStore!.request;
    const field = fc.constantFrom(
      'name',
      'type',
      'auth',
      'tags',
      'read',
      'write',
      'description',
      'path_restriction',
      'id',
      'lock_version',
      '__proto__',
      'constructor',
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(field, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }).map((changes) => ({ ...valid, ...changes })),
      fc
        .record({
          auth: fc.dictionary(
            fc.constantFrom('auth_type', 'endpoint', 'access_key_id', 'secret_access_key'),
            fc.jsonValue({ maxDepth: 1 }),
          ),
        })
        .map((changes) => ({ ...valid, ...changes })),
    );
    const target = fc.constantFrom(
      ['POST', '/connections'],
      ['POST', '/connections/test'],
      ['PUT', '/connections/1'],
      ['PATCH', '/connections/1'],
      ['PUT', '/connections/1/type-mapping'],
    );
    await fc.assert(
      fc.asyncProperty(target, body, async ([method, path], payload) => {
        const response = await api.raw(method!, path!, {
          body: JSON.stringify(payload),
          contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        });
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) expect(Object.hasOwn(errorCatalogue, response.problem.code)).toBe(true);
      }),
      { numRuns: 150, interruptAfterTimeLimit: 20_000 },
    );
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('unexpected failures', () => {
  it('answers 10-500 without internals, and logs the traceId with the cause', async () => {
    const lines: string[] = [];
    const [writeOut, writeErr] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
    const capture = ((chunk: unknown) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    logger.setLogLevel('INFO');
    const dataKey = process.env.DATA_KEY_ID;
    // A misconfigured key: KMS refuses, which no caller could have caused.
    process.env.DATA_KEY_ID = 'alias/does-not-exist';
    let response: ApiResponse<unknown>;
    try {
      response = await api.call('createConnection', {
        body: { ...connectionCases('https://s3.example.com')[0]!.request, name: 'boom' },
      });
    } finally {
      process.env.DATA_KEY_ID = dataKey;
      logger.setLogLevel('SILENT');
      process.stdout.write = writeOut;
      process.stderr.write = writeErr;
    }
    const problem = expectProblem(response, 500, '10-500', '/api/data/v1/connections');
    expect(problem.detail).toBe('Internal server error');
    expect(response.text).not.toMatch(/NotFoundException|alias|at .*\.ts|stack/i);
    const logLine = lines
      .map((line): unknown => JSON.parse(line))
      .filter(isRecord)
      .find((entry) => entry.level === 'ERROR');
    expect(logLine).toMatchObject({
      message: 'request failed',
      traceId: problem.traceId,
      status: 500,
      operationId: 'createConnection',
    });
    expect(JSON.stringify(logLine?.error)).toContain('NotFoundException');
  });
});
