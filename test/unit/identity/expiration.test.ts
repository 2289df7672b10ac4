import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../shared/errors/app-error';
import { expirationOf } from '../../../shared/identity/expiration';

const now = new Date('2026-01-31T10:00:00Z');

describe('a tenant token expiration', () => {
  it('reads ISO 8601 durations from now, years and months on the calendar (UTC)', () => {
    expect(expirationOf('P30D', now).toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(expirationOf('P2W', now).toISOString()).toBe('2026-02-14T10:00:00.000Z');
    expect(expirationOf('PT12H', now).toISOString()).toBe('2026-01-31T22:00:00.000Z');
    expect(expirationOf('P1Y6M', now).toISOString()).toBe('2027-07-31T10:00:00.000Z');
    expect(expirationOf('P1DT1H30M15S', now).toISOString()).toBe('2026-02-01T11:30:15.000Z');
  });

  it('reads RFC 3339 date-times with their offset', () => {
    expect(expirationOf('2026-02-01T00:00:00+02:00', now).toISOString()).toBe('2026-01-31T22:00:00.000Z');
    expect(expirationOf('2026-06-30T12:00:00.5Z', now).toISOString()).toBe('2026-06-30T12:00:00.500Z');
  });

  it('refuses the past, now, impossible dates, empty durations and more than ten years, naming expiration', () => {
    for (const text of [
      '2026-01-31T10:00:00Z',
      '2025-12-31T00:00:00Z',
      '2026-02-30T00:00:00Z',
      'P',
      'PT',
      'PT0S',
      'P10Y1D',
      '2036-02-01T00:00:00Z',
      'soon',
    ]) {
      let refusal: unknown;
      try {
        expirationOf(text, now);
      } catch (error) {
        refusal = error;
      }
      expect(isAppError(refusal) && refusal.code, text).toBe('10-1400');
      expect(isAppError(refusal) && Object.keys(refusal.extraDetails ?? {}), text).toEqual(['expiration']);
    }
  });

  it('takes exactly ten years', () => {
    expect(expirationOf('P10Y', now).toISOString()).toBe('2036-01-31T10:00:00.000Z');
  });
});
