import { describe, expect, it } from 'vitest';
import { AppError, ECHO_LENGTH } from '../../../shared/errors/app-error';
import { PROBLEM_CONTENT_TYPE, batchItemError, toProblem } from '../../../shared/errors/problem';
import { BatchItemError } from '../../../shared/model/data-table';
import { Problem } from '../../../shared/errors/problem-body';

const now = new Date('2025-03-04T05:06:07.089Z');
const context = { instance: '/api/data/v1/connections/9', traceId: 'trace-123', errorBase: '/api/data/v1', now };

describe('toProblem', () => {
  it('produces every RFC 7807 field of the error envelope', () => {
    const problem = toProblem(new AppError('10-404', { params: ['connection', 9] }), context);
    expect(problem).toEqual({
      type: '/api/data/v1/errors/10-404',
      title: 'Not Found',
      status: 404,
      detail: 'Entity connection with ID 9 not found',
      instance: '/api/data/v1/connections/9',
      code: '10-404',
      timestamp: '2025-03-04T05:06:07.089Z',
      traceId: 'trace-123',
    });
    expect(Object.hasOwn(problem, 'extraDetails')).toBe(false);
    expect(Problem.safeParse(problem).success).toBe(true);
  });

  it('builds the type URI from an absolute error base', () => {
    const problem = toProblem(new AppError('30-1130'), { ...context, errorBase: 'https://errors.example.com' });
    expect(problem.type).toBe('https://errors.example.com/errors/30-1130');
  });

  it('uses the HTTP reason phrase of the status as title', () => {
    const title = (code: ConstructorParameters<typeof AppError>[0]) => toProblem(new AppError(code), context).title;
    expect(title('10-1400')).toBe('Bad Request');
    expect(title('10-401')).toBe('Unauthorized');
    expect(title('10-403')).toBe('Forbidden');
    expect(title('10-1006')).toBe('Conflict');
    expect(title('20-1031')).toBe('Unprocessable Entity');
    expect(title('30-1112')).toBe('Moved Permanently');
    expect(title('30-1307')).toBe('Too Many Requests');
    expect(title('10-500')).toBe('Internal Server Error');
  });

  it('includes extraDetails when given, as a copy', () => {
    const extraDetails = { name: 'is required' };
    const problem = toProblem(new AppError('10-1400', { extraDetails }), context);
    expect(problem.extraDetails).toEqual({ name: 'is required' });
    expect(problem.extraDetails).not.toBe(extraDetails);
    expect(Problem.safeParse(problem).success).toBe(true);
  });

  it('bounds every text of extraDetails, member names included, and escapes what it hides', () => {
    const long = 'k'.repeat(5_000);
    const problem = toProblem(
      new AppError('10-1400', {
        extraDetails: {
          [long]: 'is not a known field',
          'tables.\u0000evil': 'is not a known field',
          cause: `Parser Error: syntax error at or near "${'x'.repeat(1_000)}"`,
          functions: ['ok', 'bell\u0007'],
          nested: { ['\u202e']: 'y'.repeat(300), count: 3 },
          rule: 'must match ^[a-z]\\d+$',
        },
      }),
      context,
    );
    expect(problem.extraDetails).toEqual({
      [`${'k'.repeat(ECHO_LENGTH)}…`]: 'is not a known field',
      'tables.\\u0000evil': 'is not a known field',
      cause: `Parser Error: syntax error at or near "${'x'.repeat(ECHO_LENGTH - 39)}…`,
      functions: ['ok', 'bell\\u0007'],
      nested: { '\\u202e': `${'y'.repeat(ECHO_LENGTH)}…`, count: 3 },
      rule: 'must match ^[a-z]\\d+$',
    });
    expect(Problem.safeParse(problem).success).toBe(true);
  });

  it('keeps both rules of two member names that are the same once cut', () => {
    const problem = toProblem(
      new AppError('10-1400', {
        extraDetails: {
          [`${'k'.repeat(ECHO_LENGTH)}a`]: 'is not a known field',
          [`${'k'.repeat(ECHO_LENGTH)}b`]: 'must be a string',
        },
      }),
      context,
    );
    expect(problem.extraDetails).toEqual({ [`${'k'.repeat(ECHO_LENGTH)}…`]: 'is not a known field; must be a string' });
  });

  it('bounds the instance: the path as sent', () => {
    const path = `/api/data/v1/connections/${'c'.repeat(4_000)}`;
    expect(toProblem(new AppError('10-1400'), { ...context, instance: path }).instance).toBe(
      `${path.slice(0, ECHO_LENGTH)}…`,
    );
    // A number the bound would split is left out whole: its first digits would read as another id.
    const id = `/api/data/v1/connections/${'9'.repeat(4_000)}`;
    expect(toProblem(new AppError('10-1400'), { ...context, instance: id }).instance).toBe(
      '/api/data/v1/connections/…',
    );
  });

  it('reports the overriding status: a wrong method is 405 Method Not Allowed with code 10-400', () => {
    const problem = toProblem(new AppError('10-400', { status: 405, extraDetails: { allow: 'GET, POST' } }), context);
    expect(problem.status).toBe(405);
    expect(problem.title).toBe('Method Not Allowed');
    expect(problem.code).toBe('10-400');
    expect(problem.type).toBe('/api/data/v1/errors/10-400');
    expect(problem.detail).toBe('Bad request');
  });

  it('stamps the current time in ISO 8601 when no time is given', () => {
    const before = Date.now();
    const problem = toProblem(new AppError('10-500'), { instance: '/x', traceId: 't', errorBase: '' });
    const after = Date.now();
    expect(problem.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const stamped = Date.parse(problem.timestamp);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(after);
  });

  it('never reveals the technical cause', () => {
    const problem = toProblem(new AppError('10-500', { cause: new Error('password=hunter2') }), context);
    expect(JSON.stringify(problem)).not.toContain('hunter2');
  });

  it('is served as application/problem+json', () => {
    expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  });
});

describe('batchItemError', () => {
  it("shows a refused item's code, status and message, and nothing of the cause", () => {
    const error = batchItemError(
      new AppError('10-404', { params: ['data table', 7], cause: new Error('password=hunter2') }),
    );
    expect(error).toEqual({ code: '10-404', status: 404, message: 'Entity data table with ID 7 not found' });
    expect(BatchItemError.safeParse(error).success).toBe(true);
  });

  it('rethrows a failure that is not a refusal, so the whole request fails', () => {
    const failure = new Error('connection reset');
    expect(() => batchItemError(failure)).toThrow(failure);
  });
});
