/**
 * Local EventBridge Scheduler: the calls the service makes (CreateSchedule, UpdateSchedule,
 * DeleteSchedule, GetSchedule, ListSchedules) over the Scheduler's REST JSON protocol, so
 * functions run their real @aws-sdk/client-scheduler code against it; and the firing, on the
 * twin's clock (the one the retention sweep reads, shared/retention/clock.ts), which tests move
 * with `advance` instead of waiting for 06:00.
 *
 * It fires `cron(...)` in its time zone (shared/schedules/cron.ts: a time the clocks skip does
 * not run, one lived twice runs once), `rate(...)` from its StartDate (or its creation), and
 * `at(...)` once, deleting the schedule after it when ActionAfterCompletion is DELETE; a
 * DISABLED schedule does not fire. A fire hands the target's Input to `invoke`, in this process,
 * with `<aws.scheduler.scheduled-time>` filled in (the only context attribute it fills).
 *
 * What it does not do as EventBridge Scheduler does:
 * - It fires at the exact instant, not within the minute; FlexibleTimeWindow is ignored.
 * - It does not assume the target's role: any RoleArn is accepted and nothing checks that the
 *   role may invoke the target; a target the twin does not know is logged and dropped.
 * - No retries, no dead-letter queue, no MaximumEventAgeInSeconds: a failing invocation is logged.
 * - Schedule groups are not resources: any GroupName is accepted, no CreateScheduleGroup, no tags.
 * - EndDate, KmsKeyArn and the non-Lambda target parameters are kept but never read.
 * - An `at(...)` in the past fires at the next check; the Scheduler's handling may differ.
 * - Schedules live in memory: a restart of the twin forgets them (the deployed ones persist).
 * - Cron expressions are what shared/schedules/cron.ts reads: no `L`, `W` or `#`, year `*` only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../shared/log';
import { CronError, nextCronTime, parseEventBridgeCron, type Cron } from '../../shared/schedules/cron';

/** What the stand-in keeps of a schedule: its definition as the API took it. */
interface Definition {
  readonly Name: string;
  readonly GroupName?: string;
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly StartDate?: number;
  readonly EndDate?: number;
  readonly Description?: string;
  readonly State?: 'ENABLED' | 'DISABLED';
  readonly FlexibleTimeWindow?: unknown;
  readonly ActionAfterCompletion?: 'NONE' | 'DELETE';
  readonly KmsKeyArn?: string;
  readonly Target: { readonly Arn: string; readonly RoleArn: string; readonly Input?: string };
}

interface Held {
  definition: Definition;
  readonly created: number;
  modified: number;
  /** When it fires next (the clock's ms); undefined: never again. */
  next: number | undefined;
}

type When =
  { kind: 'cron'; cron: Cron; timeZone: string } | { kind: 'rate'; everyMs: number } | { kind: 'at'; at: number };

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const UNIT_MS: Readonly<Record<string, number>> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** The expression as the stand-in fires it; a ValidationException when the Scheduler would refuse it. */
function whenOf(definition: Definition): When {
  const expression = definition.ScheduleExpression;
  const timeZone = definition.ScheduleExpressionTimezone ?? 'UTC';
  const rate = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expression);
  if (rate) return { kind: 'rate', everyMs: Number(rate[1]) * UNIT_MS[rate[2]!]! };
  const at = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (at) {
    if (timeZone !== 'UTC') throw new ApiError(400, 'ValidationException', 'the stand-in reads at() in UTC only');
    return { kind: 'at', at: Date.parse(`${at[1]}Z`) };
  }
  try {
    return { kind: 'cron', cron: parseEventBridgeCron(expression), timeZone };
  } catch (error) {
    if (error instanceof CronError)
      throw new ApiError(400, 'ValidationException', `Invalid Schedule Expression ${expression}.`);
    throw error;
  }
}

/** The first fire after `after`; undefined when there is none (an at() that fired). */
function nextFire(held: Held, after: number): number | undefined {
  const { definition } = held;
  const when = whenOf(definition);
  let next: number | undefined;
  if (when.kind === 'at') next = when.at > after || held.next === undefined ? when.at : undefined;
  else if (when.kind === 'cron') next = nextCronTime(when.cron, when.timeZone, after);
  else {
    const start = definition.StartDate !== undefined ? definition.StartDate * 1000 : held.created;
    next = start > after ? start : start + (Math.floor((after - start) / when.everyMs) + 1) * when.everyMs;
  }
  if (next !== undefined && definition.EndDate !== undefined && next > definition.EndDate * 1000) return undefined;
  return next;
}

export interface LocalSchedulerOptions {
  /** The twin's clock (ms). */
  readonly now: () => number;
  /** Moves the twin's clock forward. */
  readonly advanceClock: (ms: number) => void;
  /** Hands a fire's Input to the target the ARN names; a rejection is logged. */
  readonly invoke: (targetArn: string, input: unknown) => Promise<void>;
  /** How often it looks for schedules due on the clock as it runs by itself; never when 0. */
  readonly checkEveryMs?: number;
  readonly port?: number;
}

export interface LocalScheduler {
  readonly endpoint: string;
  /**
   * Moves the clock forward by `ms`, stopping at each fire due on the way (the clock reads the
   * fire's time while its target runs), and resolves once they have run: how many fired.
   */
  advance(ms: number): Promise<number>;
  /** Fires what is due on the clock as it stands, and resolves once it has run. */
  runDue(): Promise<number>;
  /** The names of the schedules it holds, by group. */
  names(): { readonly group: string; readonly name: string }[];
  close(): Promise<void>;
}

const REGION_ACCOUNT = 'us-east-1:000000000000';

export async function startLocalScheduler(options: LocalSchedulerOptions): Promise<LocalScheduler> {
  const schedules = new Map<string, Held>();
  const keyOf = (group: string | undefined, name: string) => `${group ?? 'default'}/${name}`;
  const arnOf = (group: string | undefined, name: string) =>
    `arn:aws:scheduler:${REGION_ACCOUNT}:schedule/${group ?? 'default'}/${name}`;

  /** The due schedule that fires first, if any is due by `until`. */
  const earliestDue = (until: number): [string, Held] | undefined => {
    let found: [string, Held] | undefined;
    for (const entry of schedules) {
      const [, held] = entry;
      if (held.definition.State === 'DISABLED' || held.next === undefined || held.next > until) continue;
      if (!found || held.next < found[1].next!) found = entry;
    }
    return found;
  };

  const fire = async (key: string, held: Held): Promise<void> => {
    const at = held.next!;
    const { definition } = held;
    if (whenOf(definition).kind === 'at') {
      held.next = undefined;
      if (definition.ActionAfterCompletion === 'DELETE') schedules.delete(key);
    } else held.next = nextFire(held, at);
    // The context attribute the Scheduler fills in the target's Input: the time it fired for.
    const text = definition.Target.Input?.replaceAll(
      '<aws.scheduler.scheduled-time>',
      new Date(at).toISOString().replace('.000Z', 'Z'),
    );
    let input: unknown;
    try {
      input = text === undefined ? {} : JSON.parse(text);
    } catch {
      input = text;
    }
    await options
      .invoke(definition.Target.Arn, input)
      .catch((error: unknown) =>
        logger.error('local scheduler: the target failed', { schedule: key, error: error as Error }),
      );
  };

  /** One at a time: a check, an advance and the timer never fire the same schedule twice. */
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const fireUntil = async (until: number): Promise<number> => {
    let fired = 0;
    for (let due = earliestDue(until); due; due = earliestDue(until)) {
      const [key, held] = due;
      // The clock reads the fire's time while its target runs.
      const lag = held.next! - options.now();
      if (lag > 0) options.advanceClock(lag);
      await fire(key, held);
      fired += 1;
    }
    return fired;
  };

  const handle = async (request: IncomingMessage, body: string): Promise<{ status: number; body: unknown }> => {
    const url = new URL(request.url ?? '/', 'http://scheduler');
    const name = /^\/schedules\/([^/]+)$/.exec(url.pathname)?.[1];
    if (request.method === 'GET' && url.pathname === '/schedules') {
      const group = url.searchParams.get('ScheduleGroup') ?? undefined;
      const prefix = url.searchParams.get('NamePrefix') ?? '';
      const items = [...schedules.values()]
        .map((held) => held.definition)
        .filter(
          (definition) => (group === undefined || definition.GroupName === group) && definition.Name.startsWith(prefix),
        )
        .map((definition) => {
          const held = schedules.get(keyOf(definition.GroupName, definition.Name))!;
          return {
            Arn: arnOf(definition.GroupName, definition.Name),
            Name: definition.Name,
            GroupName: definition.GroupName ?? 'default',
            State: definition.State ?? 'ENABLED',
            CreationDate: held.created / 1000,
            LastModificationDate: held.modified / 1000,
            Target: { Arn: definition.Target.Arn },
          };
        });
      return { status: 200, body: { Schedules: items } };
    }
    if (name === undefined)
      throw new ApiError(404, 'ResourceNotFoundException', `no route ${request.method} ${url.pathname}`);
    const scheduleName = decodeURIComponent(name);
    const queryGroup = url.searchParams.get('groupName') ?? undefined;
    switch (request.method) {
      case 'POST':
      case 'PUT': {
        const parsed = JSON.parse(body === '' ? '{}' : body) as Omit<Definition, 'Name'>;
        const definition: Definition = { ...parsed, Name: scheduleName };
        if (typeof definition.ScheduleExpression !== 'string' || typeof definition.Target?.Arn !== 'string')
          throw new ApiError(400, 'ValidationException', 'ScheduleExpression and Target are required');
        whenOf(definition);
        const key = keyOf(definition.GroupName, scheduleName);
        const existing = schedules.get(key);
        const now = options.now();
        if (request.method === 'POST') {
          if (existing) throw new ApiError(409, 'ConflictException', `Schedule ${scheduleName} already exists.`);
          const held: Held = { definition, created: now, modified: now, next: undefined };
          held.next = nextFire(held, now);
          schedules.set(key, held);
        } else {
          if (!existing)
            throw new ApiError(404, 'ResourceNotFoundException', `Schedule ${scheduleName} does not exist.`);
          existing.definition = definition;
          existing.modified = now;
          existing.next = nextFire({ ...existing, next: undefined }, now);
        }
        return { status: 200, body: { ScheduleArn: arnOf(definition.GroupName, scheduleName) } };
      }
      case 'GET': {
        const held = schedules.get(keyOf(queryGroup, scheduleName));
        if (!held) throw new ApiError(404, 'ResourceNotFoundException', `Schedule ${scheduleName} does not exist.`);
        const { definition } = held;
        return {
          status: 200,
          body: {
            ...definition,
            Arn: arnOf(definition.GroupName, scheduleName),
            GroupName: definition.GroupName ?? 'default',
            State: definition.State ?? 'ENABLED',
            CreationDate: held.created / 1000,
            LastModificationDate: held.modified / 1000,
          },
        };
      }
      case 'DELETE': {
        if (!schedules.delete(keyOf(queryGroup, scheduleName)))
          throw new ApiError(404, 'ResourceNotFoundException', `Schedule ${scheduleName} does not exist.`);
        return { status: 200, body: {} };
      }
      default:
        throw new ApiError(405, 'ValidationException', `method ${request.method} not supported`);
    }
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown, type?: string) => {
        response.writeHead(status, {
          'content-type': 'application/json',
          ...(type === undefined ? {} : { 'x-amzn-errortype': type }),
        });
        response.end(JSON.stringify(body));
      };
      handle(request, Buffer.concat(chunks).toString('utf8'))
        .then(({ status, body }) => reply(status, body))
        .catch((error: unknown) => {
          if (error instanceof ApiError) reply(error.status, { Message: error.message }, error.type);
          else if (error instanceof SyntaxError) reply(400, { Message: 'body is not JSON' }, 'ValidationException');
          else reply(500, { Message: 'internal error' }, 'InternalServerException');
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const timer =
    options.checkEveryMs === undefined || options.checkEveryMs === 0
      ? undefined
      : setInterval(() => {
          void serially(() => fireUntil(options.now()));
        }, options.checkEveryMs);

  return {
    endpoint: `http://127.0.0.1:${port}`,
    advance: (ms) =>
      serially(async () => {
        const until = options.now() + ms;
        const fired = await fireUntil(until);
        const rest = until - options.now();
        if (rest > 0) options.advanceClock(rest);
        return fired;
      }),
    runDue: () => serially(() => fireUntil(options.now())),
    names: () =>
      [...schedules.values()].map(({ definition }) => ({
        group: definition.GroupName ?? 'default',
        name: definition.Name,
      })),
    async close() {
      if (timer) clearInterval(timer);
      await queue;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
