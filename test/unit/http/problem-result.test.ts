import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { problemResult, type ApiEvent } from '../../../shared/http/handler';

const event = { rawPath: '/api/data/v1/recipes/analyze', requestContext: { requestId: 'trace-1' } } as ApiEvent;

describe('problemResult', () => {
  it('says when to come back in a Retry-After header when the refusal carries a retry time', () => {
    const busy = new AppError('50-1012', { extraDetails: { retry_after_seconds: 5 } });
    const result = problemResult(busy, event);
    expect(result.statusCode).toBe(502);
    expect(result.headers?.['retry-after']).toBe('5');
    expect(JSON.parse(result.body ?? '{}')).toMatchObject({
      code: '50-1012',
      extraDetails: { retry_after_seconds: 5 },
    });
  });

  it('sends no Retry-After otherwise', () => {
    expect(problemResult(new AppError('50-1012'), event).headers).not.toHaveProperty('retry-after');
  });
});
