import { expect } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';

/** The AppError an analysis or description refuses with; fails the test when it succeeds or throws anything else. */
export async function refusal(attempt: Promise<unknown>): Promise<AppError> {
  const outcome = await attempt.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('value' in outcome) expect.fail(`accepted: ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(AppError);
  return outcome.error as AppError;
}
