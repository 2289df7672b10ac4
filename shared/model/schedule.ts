import * as z from 'zod';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  listEnvelope,
} from './common';
import { documented, mergePatchOf } from './merge-patch-schema';

/**
 * Schedules of dataset builds (docs/schedules.md): what starts a build (a cron in a time zone,
 * a rate, or a new COMPLETED version of a data table), which graph version it builds, what a
 * tick does while a build of that version runs, and whether the schedule is paused. One
 * table of fields for requests, responses and the stored form.
 */

/**
 * The cron a user writes: five fields, read and checked with the time zone where the schedule
 * is written (shared/schedules/entity.ts), so that the route tables, which the OpenAPI
 * function bundles whole, do not carry the cron reader.
 */
const CronExpression = z
  .string()
  .max(200)
  // The shape only, so that the document says it too; values and ranges are the reader's.
  .regex(/^\s*[0-9A-Za-z*?,/-]+(\s+[0-9A-Za-z*?,/-]+){4}\s*$/, {
    error:
      'must have five fields of numbers, names, *, ?, ",", "-" and "/": minute hour day-of-month month day-of-week (e.g. "0 6 * * *")',
  })
  .describe('Five fields: minute hour day-of-month month day-of-week, e.g. `0 6 * * *` (06:00 every day)');

/** An IANA name's shape (`Europe/Paris`, `UTC`, `Etc/GMT+5`); whether the zone exists is the runtime's time zone data. */
const TimeZone = z
  .string()
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/, { error: 'must be an IANA time zone, e.g. Europe/Paris' })
  .describe('IANA time zone the cron is read in; daylight saving time is followed');

export const ScheduleTrigger = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('cron'),
      expression: CronExpression,
      time_zone: TimeZone.default('UTC'),
    }),
    z.strictObject({
      type: z.literal('rate'),
      every: z.int().min(1).max(1000).describe('How many units between builds'),
      unit: z.enum(['minutes', 'hours', 'days']),
    }),
    z.strictObject({
      type: z.literal('on_new_version'),
      data_table_id: EntityId.describe('The source table: each new COMPLETED version of it starts a build, once'),
    }),
  ])
  .meta({ id: 'ScheduleTrigger' });
export type ScheduleTrigger = z.output<typeof ScheduleTrigger>;

export const GRAPH_VERSION_CHOICES = ['latest', 'released'] as const;
export const OVERLAP_RULES = ['skip', 'queue'] as const;

/** The fields a schedule is made of, as create and update take them. */
const DEFINITION = {
  name: Name,
  description: Description,
  tags: Tags,
  dataset_id: EntityId.describe('The dataset whose graph version is built'),
  trigger: ScheduleTrigger,
  graph_version: z
    .enum(GRAPH_VERSION_CHOICES)
    .default('latest')
    .describe(
      'Which graph version a build builds: the newest (latest), or a new version made from the newest released one, released once built (released)',
    ),
  overlap: z
    .enum(OVERLAP_RULES)
    .default('skip')
    .describe('While a build of that graph version runs, a tick is skipped (recorded) or queued until it ends'),
  paused: z.boolean().default(false).describe('A paused schedule starts nothing; pause and resume set it'),
};

export const ScheduleCreateRequest = z.strictObject(DEFINITION).meta({ id: 'ScheduleCreateRequest' });

export const ScheduleUpdateRequest = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    ...DEFINITION,
    next_run_date: z.unknown().optional().describe('Read-only; accepted and ignored'),
    ...EchoedAuditFields,
  })
  .meta({ id: 'ScheduleUpdateRequest', description: 'Full update: description and tags omitted are cleared' });

export const ScheduleMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion }),
  mergePatchOf(ScheduleUpdateRequest, ['id', 'lock_version']).meta({
    id: 'ScheduleMergePatch',
    description: 'RFC 7396 merge patch of ScheduleUpdateRequest: id and lock_version are required',
  }),
);

/** Pause and resume carry the lock_version the caller read. */
export const ScheduleStateRequest = z.strictObject({ lock_version: LockVersion }).meta({ id: 'ScheduleStateRequest' });

export const ScheduleResponse = z
  .object({
    id: z.int(),
    lock_version: z.int(),
    name: z.string(),
    description: z.string().nullable(),
    tags: z.array(z.string()).nullable(),
    dataset_id: z.int(),
    trigger: ScheduleTrigger,
    graph_version: z.enum(GRAPH_VERSION_CHOICES),
    overlap: z.enum(OVERLAP_RULES),
    paused: z.boolean(),
    next_run_date: z.iso
      .datetime()
      .nullable()
      .describe('When a cron or rate schedule next starts a build; null when paused or on new versions'),
    ...AuditFields,
  })
  .meta({ id: 'Schedule' });
export const ScheduleList = listEnvelope(ScheduleResponse, 'ScheduleList');

export const ScheduleIdParams = z.strictObject({ schedule_id: IdParameter });

/** What started a history entry. */
export const SCHEDULE_CAUSES = ['cron', 'rate', 'on_new_version', 'queued'] as const;

/**
 * What became of a tick: the build it STARTED (then SUCCEEDED or FAILED as its run ends; a
 * released schedule's SUCCEEDED once its new version is released), or
 * none: SKIPPED (a build of the version was running; overlap skip), QUEUED (it was; overlap
 * queue), REFUSED (what a user's start would have been refused with: the code says it).
 */
export const SCHEDULE_OUTCOMES = ['STARTED', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'QUEUED', 'REFUSED'] as const;

export const ScheduleRun = z
  .object({
    run_id: z.string().describe('The entry’s id'),
    schedule_id: z.int(),
    date: z.iso.datetime().describe('When the tick happened'),
    cause: z.enum(SCHEDULE_CAUSES),
    data_table_id: z.int().nullable().describe('on_new_version: the table whose version started it'),
    data_version_number: z.int().nullable(),
    dataset_id: z.int(),
    graph_version_number: z.int().nullable().describe('The graph version built; null when none was chosen'),
    node_id: z.int().nullable().describe('The output node the build ran'),
    job_id: z.string().nullable().describe('The build’s job: the node’s run-status names it'),
    outcome: z.enum(SCHEDULE_OUTCOMES),
    code: z.string().nullable().describe('The catalogue code of a refusal, a skip or a failed build'),
    message: z.string().nullable(),
  })
  .meta({ id: 'ScheduleRun' });
export type ScheduleRun = z.output<typeof ScheduleRun>;
export const ScheduleRunList = listEnvelope(ScheduleRun, 'ScheduleRunList');

export type ScheduleCreateRequest = z.output<typeof ScheduleCreateRequest>;
export type ScheduleUpdateRequest = z.output<typeof ScheduleUpdateRequest>;
export type ScheduleResponse = z.input<typeof ScheduleResponse>;

/** What a schedule's history can be filtered and sorted by (docs/list-query.md). */
export const SCHEDULE_RUN_LIST_FIELDS = {
  date: 'datetime',
  cause: 'string',
  outcome: 'string',
  code: 'string',
  job_id: 'string',
  graph_version_number: 'integer',
  data_table_id: 'integer',
  data_version_number: 'integer',
} as const;
