import { validationError } from '../errors/app-error';
import { EXPIRATION_DATE_TIME, EXPIRATION_DURATION } from '../model/token';

/**
 * A tenant token's `expiration` (spec 5.7 leaves its format open; docs/decisions.md): an ISO
 * 8601 date-time with its offset as RFC 3339 writes it (`2027-01-31T00:00:00Z`), or an ISO
 * 8601 duration from now (`P30D`, `P1Y6M`, `PT12H`, `P2W`) with whole numbers. Years and
 * months are calendar ones (UTC). The moment must be in the future and at most ten years
 * ahead; anything else is 10-1400 naming `expiration`.
 */
export const MAX_TOKEN_YEARS = 10;

const RULE = `must be an ISO 8601 date-time with offset or an ISO 8601 duration (e.g. P30D), in the future and at most ${MAX_TOKEN_YEARS} years ahead`;

export function expirationOf(text: string, now = new Date()): Date {
  const at = EXPIRATION_DATE_TIME.test(text) ? dateTime(text) : afterDuration(text, now);
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_TOKEN_YEARS);
  if (at === undefined || Number.isNaN(at.getTime()) || at <= now || at > latest) {
    throw validationError({ expiration: RULE });
  }
  return at;
}

/** The moment, unless its calendar date does not exist (Date would take 2027-02-30 as 2 March). */
function dateTime(text: string): Date | undefined {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day));
  return calendar.getUTCMonth() === month! - 1 && calendar.getUTCDate() === day ? new Date(text) : undefined;
}

function afterDuration(text: string, now: Date): Date | undefined {
  const match = EXPIRATION_DURATION.exec(text);
  // "P" and "PT" alone name no duration.
  if (!match || match.slice(1).every((part) => part === undefined)) return undefined;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  const at = new Date(now);
  at.setUTCFullYear(at.getUTCFullYear() + years!, at.getUTCMonth() + months!);
  const clock = (((weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60 + seconds!;
  return new Date(at.getTime() + clock * 1000);
}
