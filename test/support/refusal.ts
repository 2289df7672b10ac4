import { expect } from 'vitest';
import { AppError } from '../../shared/errors/app-error';

/** The AppError `run` throws; fails the test when it throws nothing or something else. */
export function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}
