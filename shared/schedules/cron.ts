/**
 * Cron expressions of schedules (docs/schedules.md): the five fields a user writes (minute,
 * hour, day of month, month, day of week), checked here, evaluated in an IANA time zone the
 * way EventBridge Scheduler evaluates them, and written as the Scheduler's own six-field
 * `cron(...)`. One module, so the twin's scheduler stand-in and the service read a cron alike.
 *
 * Daylight saving time, as EventBridge Scheduler documents it: a time the clocks skip in
 * spring does not run; a time that happens twice in autumn runs once, the first time.
 */

/** A field's allowed values, and the names it also accepts. */
interface FieldSpec {
  readonly label: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { label: 'minute', min: 0, max: 59 },
  { label: 'hour', min: 0, max: 23 },
  { label: 'day of month', min: 1, max: 31 },
  {
    label: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  // 0 and 7 are both Sunday, as in Unix cron.
  { label: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** A parsed cron: the values each field matches, and whether the day fields were restricted. */
export interface Cron {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 (Sunday) to 6. */
  readonly daysOfWeek: ReadonlySet<number>;
}

/** A cron that cannot be read: `rule` says which part and what it breaks. */
export class CronError extends Error {
  constructor(readonly rule: string) {
    super(rule);
    this.name = 'CronError';
  }
}

function valueOf(text: string, spec: FieldSpec): number {
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return spec.names === FIELDS[3]!.names ? named + 1 : named;
  if (!/^\d{1,2}$/.test(text)) throw new CronError(`${spec.label}: "${text}" is not a number`);
  const value = Number(text);
  if (value < spec.min || value > spec.max)
    throw new CronError(`${spec.label}: ${value} is outside ${spec.min}-${spec.max}`);
  return value;
}

/** The values of one field: `*`, `n`, `a-b`, each with an optional `/step`, separated by commas. */
function parseField(text: string, spec: FieldSpec): { values: Set<number>; restricted: boolean } {
  const values = new Set<number>();
  let restricted = false;
  for (const part of text.split(',')) {
    const match = /^([^/]+)(?:\/(\d{1,2}))?$/.exec(part);
    if (!match) throw new CronError(`${spec.label}: "${part}" is not a value, a range or a step`);
    const [, range, stepText] = match as unknown as [string, string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new CronError(`${spec.label}: a step must be at least 1`);
    let from: number;
    let to: number;
    if (range === '*' || range === '?') {
      [from, to] = [spec.min, spec.max];
      if (stepText !== undefined) restricted = true;
    } else {
      restricted = true;
      const bounds = range.split('-');
      if (bounds.length > 2) throw new CronError(`${spec.label}: "${range}" is not a range`);
      from = valueOf(bounds[0]!, spec);
      to = bounds.length === 2 ? valueOf(bounds[1]!, spec) : stepText === undefined ? from : spec.max;
      if (to < from) throw new CronError(`${spec.label}: range ${range} runs backwards`);
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return { values, restricted };
}

/**
 * Reads a five-field cron (`0 6 * * *`: 06:00 every day). Day of month and day of week
 * cannot both be restricted: EventBridge Scheduler takes one of them (the other is `?`).
 */
export function parseCron(expression: string): Cron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronError('must have five fields: minute hour day-of-month month day-of-week (e.g. "0 6 * * *")');
  const [minute, hour, dom, month, dow] = parts.map((part, index) => parseField(part, FIELDS[index]!));
  if (dom!.restricted && dow!.restricted)
    throw new CronError('day of month and day of week cannot both be set; put * in one of them');
  const daysOfWeek = new Set([...dow!.values].map((day) => day % 7));
  return {
    minutes: [...minute!.values].sort((a, b) => a - b),
    hours: [...hour!.values].sort((a, b) => a - b),
    daysOfMonth: dom!.restricted ? dom!.values : new Set(range(1, 31)),
    months: month!.values,
    daysOfWeek: dow!.restricted ? daysOfWeek : new Set(range(0, 6)),
  };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** Values as the Scheduler reads them: `*` for all, runs as `a-b`, the rest listed. */
function compact(values: Iterable<number>, all: readonly number[]): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  if (sorted.length === all.length) return '*';
  const runs: string[] = [];
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end += 1;
    runs.push(end === start ? String(sorted[start]) : `${sorted[start]}-${sorted[end]}`);
    start = end + 1;
  }
  return runs.join(',');
}

/** The Scheduler's `cron(minutes hours day-of-month month day-of-week year)`: days of week 1 (Sunday) to 7, one day field `?`. */
export function eventBridgeCron(cron: Cron): string {
  const everyDay = cron.daysOfWeek.size === 7;
  const dom = compact(cron.daysOfMonth, range(1, 31));
  const dow = everyDay
    ? '?'
    : compact(
        [...cron.daysOfWeek].map((day) => day + 1),
        range(1, 7),
      );
  return `cron(${compact(cron.minutes, range(0, 59))} ${compact(cron.hours, range(0, 23))} ${everyDay ? dom : '?'} ${compact(cron.months, range(1, 12))} ${dow} *)`;
}

/**
 * Reads the Scheduler's six-field cron back (what the twin's stand-in receives): `?` is `*`,
 * days of week 1-7 are Sunday to Saturday, the year must be `*`.
 */
export function parseEventBridgeCron(expression: string): Cron {
  const match = /^cron\((.*)\)$/.exec(expression.trim());
  const parts = match?.[1]!.trim().split(/\s+/);
  if (!parts || parts.length !== 6 || parts[5] !== '*') throw new CronError(`unsupported expression ${expression}`);
  const dow = parts[4]!;
  const unixDow =
    dow === '?' || dow === '*'
      ? '*'
      : dow
          .split(',')
          .map((part) =>
            part
              .split('-')
              .map((day) => String(Number(day) - 1))
              .join('-'),
          )
          .join(',');
  return parseCron([parts[0], parts[1], parts[2] === '?' ? '*' : parts[2], parts[3], unixDow].join(' '));
}

/** A wall-clock time of a time zone. */
interface WallTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is an IANA time zone this runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

function wallTimeAt(instant: number, timeZone: string): WallTime {
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, Number(part.value)]),
  );
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute! };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The first instant whose wall time in `timeZone` is `wall`: none in a spring-forward gap,
 * the earlier of two in an autumn overlap.
 */
function instantOf(wall: WallTime, timeZone: string): number | undefined {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const candidates = new Set<number>();
  // The zone's offset a little before and after the wall time covers both sides of any change.
  for (const probe of [asUtc - 14 * HOUR, asUtc + 14 * HOUR, asUtc]) {
    const seen = wallTimeAt(probe, timeZone);
    const offset =
      Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute) - Math.floor(probe / MINUTE) * MINUTE;
    const instant = asUtc - offset;
    const back = wallTimeAt(instant, timeZone);
    if (
      back.year === wall.year &&
      back.month === wall.month &&
      back.day === wall.day &&
      back.hour === wall.hour &&
      back.minute === wall.minute
    )
      candidates.add(instant);
  }
  return candidates.size === 0 ? undefined : Math.min(...candidates);
}

/** Five years of days: a cron for 29 February finds its next day within them. */
const SEARCH_DAYS = 5 * 366 + 1;

/** The first time after `afterMs` (exclusive) that `cron` fires in `timeZone`; undefined if none within five years. */
export function nextCronTime(cron: Cron, timeZone: string, afterMs: number): number | undefined {
  const start = wallTimeAt(afterMs, timeZone);
  const firstDay = Date.UTC(start.year, start.month - 1, start.day);
  for (let offset = 0; offset < SEARCH_DAYS; offset += 1) {
    const date = new Date(firstDay + offset * 24 * HOUR);
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!cron.months.has(month) || !cron.daysOfMonth.has(day) || !cron.daysOfWeek.has(date.getUTCDay())) continue;
    for (const hour of cron.hours) {
      for (const minute of cron.minutes) {
        // Earlier wall times of the first day happened before `afterMs`, even twice-lived ones.
        if (offset === 0 && (hour < start.hour || (hour === start.hour && minute < start.minute))) continue;
        const instant = instantOf({ year, month, day, hour, minute }, timeZone);
        if (instant !== undefined && instant > afterMs) return instant;
      }
    }
  }
  return undefined;
}
