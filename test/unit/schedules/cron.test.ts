import { describe, expect, it } from 'vitest';
import {
  CronError,
  eventBridgeCron,
  isTimeZone,
  nextCronTime,
  parseCron,
  parseEventBridgeCron,
} from '../../../shared/schedules/cron';

/** The next `count` firings after `from`, as ISO instants. */
function firings(expression: string, timeZone: string, from: string, count: number): string[] {
  const cron = parseCron(expression);
  const out: string[] = [];
  let after = Date.parse(from);
  for (let index = 0; index < count; index += 1) {
    const next = nextCronTime(cron, timeZone, after);
    if (next === undefined) break;
    out.push(new Date(next).toISOString());
    after = next;
  }
  return out;
}

describe('cron in a time zone', () => {
  it('fires at 06:00 Paris time on both sides of the spring change (UTC+1, then UTC+2)', () => {
    expect(firings('0 6 * * *', 'Europe/Paris', '2025-03-29T00:00:00Z', 3)).toEqual([
      '2025-03-29T05:00:00.000Z',
      '2025-03-30T04:00:00.000Z',
      '2025-03-31T04:00:00.000Z',
    ]);
  });

  it('fires at 06:00 New York time across its autumn change (UTC-4, then UTC-5)', () => {
    expect(firings('0 6 * * *', 'America/New_York', '2025-11-01T00:00:00Z', 3)).toEqual([
      '2025-11-01T10:00:00.000Z',
      '2025-11-02T11:00:00.000Z',
      '2025-11-03T11:00:00.000Z',
    ]);
  });

  it('skips a time the clocks jump over (02:30 Paris on 30 March 2025)', () => {
    expect(firings('30 2 * * *', 'Europe/Paris', '2025-03-29T00:00:00Z', 2)).toEqual([
      '2025-03-29T01:30:00.000Z',
      '2025-03-31T00:30:00.000Z',
    ]);
  });

  it('runs a time that happens twice once, the first time (01:30 New York on 2 November 2025)', () => {
    expect(firings('30 1 * * *', 'America/New_York', '2025-11-01T12:00:00Z', 2)).toEqual([
      '2025-11-02T05:30:00.000Z',
      '2025-11-03T06:30:00.000Z',
    ]);
  });

  it('an every-15-minutes cron does not repeat the hour lived twice', () => {
    const times = firings('*/15 * * * *', 'Europe/Paris', '2025-10-26T00:30:00Z', 6);
    // 02:45 CEST is 00:45Z; the clocks then go back to 02:00 CET (01:00Z), already lived: next is 03:00 CET.
    expect(times).toEqual([
      '2025-10-26T00:45:00.000Z',
      '2025-10-26T02:00:00.000Z',
      '2025-10-26T02:15:00.000Z',
      '2025-10-26T02:30:00.000Z',
      '2025-10-26T02:45:00.000Z',
      '2025-10-26T03:00:00.000Z',
    ]);
  });

  it('reads ranges, steps, lists and names; weekdays only', () => {
    expect(firings('0 6 * * MON-FRI', 'UTC', '2025-06-06T07:00:00Z', 2)).toEqual([
      '2025-06-09T06:00:00.000Z',
      '2025-06-10T06:00:00.000Z',
    ]);
    expect(firings('0 0 29 FEB *', 'UTC', '2025-01-01T00:00:00Z', 1)).toEqual(['2028-02-29T00:00:00.000Z']);
  });
});

describe('cron checks and the Scheduler form', () => {
  it.each([
    ['0 6 * *', 'five fields'],
    ['60 6 * * *', 'minute: 60 is outside 0-59'],
    ['0 6 1 * MON', 'cannot both be set'],
    ['0 6 L * *', 'day of month: "L" is not a number'],
    ['0 6-2 * * *', 'runs backwards'],
  ])('%s is refused (%s)', (expression, rule) => {
    expect(() => parseCron(expression)).toThrow(CronError);
    expect(() => parseCron(expression)).toThrow(rule);
  });

  it('writes six fields with days of week 1-7 and reads them back alike', () => {
    const cron = parseCron('*/20 6,18 * * 1-5');
    const written = eventBridgeCron(cron);
    expect(written).toBe('cron(0,20,40 6,18 ? * 2-6 *)');
    expect(parseEventBridgeCron(written)).toEqual(cron);
    expect(eventBridgeCron(parseCron('0 6 1 * *'))).toBe('cron(0 6 1 * ? *)');
  });

  it('knows IANA time zones', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
