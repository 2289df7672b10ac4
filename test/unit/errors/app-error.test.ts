import { describe, expect, it } from 'vitest';
import {
  AppError,
  isAppError,
  notFound,
  renderMessage,
  validationError,
  versionConflict,
} from '../../../shared/errors/app-error';

describe('renderMessage', () => {
  it('fills the placeholders in order and capitalises the first letter', () => {
    expect(renderMessage('10-404', ['connection', 42])).toBe('Entity connection with ID 42 not found');
  });

  it('fills placeholders that appear out of order', () => {
    expect(renderMessage('20-1045', ['r-7', 3])).toBe('Recipe version 3 for recipe ID r-7 not found');
    expect(renderMessage('30-6004', [1000, 12])).toBe(
      'Transfer failed due to pricing-system size limits (12 columns and 1000 rows)',
    );
  });

  it('capitalises a message that starts with a placeholder', () => {
    expect(renderMessage('20-1026', ['full', 1, 2, 3])).toBe(
      'Full schema analysis for dataset 1 version 2 and recipe 3 does not exist',
    );
  });

  it('leaves a message without placeholders as written, capitalised', () => {
    expect(renderMessage('10-1400', [])).toBe('Field validation failed for the request');
    expect(renderMessage('10-1046', ['https://dim', 'timeout'])).toBe(
      'GET /import call to the external pricing DIM (https://dim) failed: timeout',
    );
  });

  it('keeps a placeholder without a value visible', () => {
    expect(renderMessage('10-404', ['connection'])).toBe('Entity connection with ID {1} not found');
    expect(renderMessage('10-404', [])).toBe('Entity {0} with ID {1} not found');
  });

  it('renders numbers, bigints and booleans as text', () => {
    expect(renderMessage('10-404', [true, 12345678901234567890n])).toBe(
      'Entity true with ID 12345678901234567890 not found',
    );
    expect(renderMessage('10-404', ['x', 0])).toBe('Entity x with ID 0 not found');
  });

  it('inserts values literally: no second substitution, no replacement patterns', () => {
    expect(renderMessage('10-404', ['{1}', 7])).toBe('Entity {1} with ID 7 not found');
    expect(renderMessage('10-404', ["$&$'$`", '$1'])).toBe("Entity $&$'$` with ID $1 not found");
  });
});

describe('AppError', () => {
  it('carries code, catalogue status and rendered message', () => {
    const error = new AppError('10-409', { params: ['connection', 'name'] });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AppError');
    expect(error.code).toBe('10-409');
    expect(error.status).toBe(409);
    expect(error.message).toBe('Entity connection with the same unique field name already exists');
    expect(error.extraDetails).toBeUndefined();
  });

  it('keeps extraDetails and cause', () => {
    const cause = new Error('root');
    const error = new AppError('30-1100', { extraDetails: { provider_error: 'X' }, cause });
    expect(error.extraDetails).toEqual({ provider_error: 'X' });
    expect(error.cause).toBe(cause);
  });

  it('answers with an overriding status only when one is given (405 with 10-400)', () => {
    expect(new AppError('10-400').status).toBe(400);
    const wrongMethod = new AppError('10-400', { status: 405, extraDetails: { allow: 'GET' } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.code).toBe('10-400');
    expect(wrongMethod.message).toBe('Bad request');
  });

  it('validationError is 10-1400 with each field mapped to its rule', () => {
    const error = validationError({ name: 'is required', 'auth.endpoint': 'must be an absolute https:// URL' });
    expect(error.code).toBe('10-1400');
    expect(error.status).toBe(400);
    expect(error.extraDetails).toEqual({ name: 'is required', 'auth.endpoint': 'must be an absolute https:// URL' });
  });

  it('notFound is 10-404 naming the entity and id', () => {
    const error = notFound('connection', 17);
    expect(error.code).toBe('10-404');
    expect(error.status).toBe(404);
    expect(error.message).toBe('Entity connection with ID 17 not found');
  });

  it('versionConflict is 10-1006, a 409, keeping its technical cause', () => {
    const cause = new Error('TransactionConflict');
    const error = versionConflict({ cause });
    expect([error.code, error.status, error.cause]).toEqual(['10-1006', 409, cause]);
    expect(error.message).toBe('Version conflict: update failed because object data is stale');
    expect(versionConflict().cause).toBeUndefined();
  });

  it('isAppError tells AppErrors from other errors', () => {
    expect(isAppError(new AppError('10-500'))).toBe(true);
    expect(isAppError(new Error('x'))).toBe(false);
    expect(isAppError({ code: '10-500', status: 500, message: 'x' })).toBe(false);
    expect(isAppError(undefined)).toBe(false);
  });
});
