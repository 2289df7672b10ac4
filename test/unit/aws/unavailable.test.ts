import {
  ConditionalCheckFailedException,
  InternalServerError,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isServiceUnavailable } from '../../../shared/aws/unavailable';
import { AppError } from '../../../shared/errors/app-error';

const metadata = { $metadata: {} };

describe('isServiceUnavailable', () => {
  it('tells an unreachable or failing service from a refused request, through the causes', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const missing = new ResourceNotFoundException({ message: 'Requested resource not found', ...metadata });
    const failing = new InternalServerError({ message: 'Internal error', ...metadata });
    for (const error of [refused, missing, failing, new AppError('30-7005', { cause: missing })]) {
      expect(isServiceUnavailable(error), String(error)).toBe(true);
    }
    const condition = new ConditionalCheckFailedException({ message: 'The conditional request failed', ...metadata });
    for (const error of [condition, new AppError('30-7003', { cause: condition }), new TypeError('x'), 'text']) {
      expect(isServiceUnavailable(error), String(error)).toBe(false);
    }
  });

  it('counts a 5xx answer, and stops at a cause that names itself', () => {
    const answered = Object.assign(new Error('Service Unavailable'), { $metadata: { httpStatusCode: 503 } });
    expect(isServiceUnavailable(answered)).toBe(true);
    const looping: Error = new Error('loop');
    Object.assign(looping, { cause: looping });
    expect(isServiceUnavailable(looping)).toBe(false);
  });
});
