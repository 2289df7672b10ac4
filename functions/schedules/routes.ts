import * as z from 'zod';
import { defineRoute } from '../../shared/http/route';
import { integerText, listQuery } from '../../shared/model/common';
import {
  SCHEDULE_RUN_LIST_FIELDS,
  ScheduleCreateRequest,
  ScheduleIdParams,
  ScheduleList,
  ScheduleMergePatch,
  ScheduleResponse,
  ScheduleRunList,
  ScheduleStateRequest,
  ScheduleUpdateRequest,
} from '../../shared/model/schedule';
import { storedSchedules } from '../../shared/schedules/store';

const tag = 'schedules';
const PATH = '/schedules/{schedule_id}';
/** Every schedule route: the tenant's `schedules` toggle must be on. */
const TOGGLE = '10-1501';
/** Writes keep the Scheduler's schedule in step with the stored one. */
const write = { table: 'write', schedules: true } as const;
const read = { table: 'read' } as const;

export const scheduleRoutes = {
  create: defineRoute({
    operationId: 'createSchedule',
    method: 'POST',
    path: '/schedules',
    summary: 'Create a schedule that builds a dataset',
    description:
      'A build of the dataset’s latest graph version, or of a new version made from its released one and then released (graph_version released), whole and upstream first as a run of its output node on full data is, started by a cron in a time zone, a rate, or each new COMPLETED version of a data table (once per version). Quota and toggles apply as to a user’s start; what would be refused is recorded in the history. Needs the schedules toggle. Send an Idempotency-Key header to make retries safe.',
    tag,
    handler: 'schedules/create',
    permission: 'data:write',
    request: { body: ScheduleCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created schedule', body: ScheduleResponse },
    errors: ['10-404', '10-409', TOGGLE],
    access: write,
  }),
  list: defineRoute({
    operationId: 'listSchedules',
    method: 'GET',
    path: '/schedules',
    summary: 'List schedules',
    tag,
    handler: 'schedules/entity#list',
    permission: 'data:read',
    request: { query: storedSchedules.listQuery },
    response: { status: 200, description: 'A page of schedules', body: ScheduleList },
    errors: [TOGGLE],
    access: read,
  }),
  get: defineRoute({
    operationId: 'getSchedule',
    method: 'GET',
    path: PATH,
    summary: 'Get a schedule',
    tag,
    handler: 'schedules/entity#get',
    permission: 'data:read',
    request: { params: ScheduleIdParams },
    response: { status: 200, description: 'The schedule', body: ScheduleResponse },
    errors: ['10-404', TOGGLE],
    access: read,
  }),
  update: defineRoute({
    operationId: 'updateSchedule',
    method: 'PUT',
    path: PATH,
    summary: 'Update a schedule',
    description: 'Full update: description and tags omitted are cleared; the Scheduler’s schedule follows.',
    tag,
    handler: 'schedules/entity#update',
    permission: 'data:write',
    request: { params: ScheduleIdParams, body: ScheduleUpdateRequest },
    response: { status: 200, description: 'The updated schedule', body: ScheduleResponse },
    errors: ['10-404', '10-409', '10-1006', TOGGLE],
    access: write,
  }),
  merge: defineRoute({
    operationId: 'mergeSchedule',
    method: 'PATCH',
    path: PATH,
    summary: 'Merge changes into a schedule',
    description: 'RFC 7396 merge patch: only the fields sent change; null clears description or tags.',
    tag,
    handler: 'schedules/entity#merge',
    permission: 'data:write',
    request: { params: ScheduleIdParams, body: ScheduleMergePatch, bodyTypes: ['merge-patch', 'json'] },
    response: { status: 200, description: 'The updated schedule', body: ScheduleResponse },
    errors: ['10-404', '10-409', '10-1006', TOGGLE],
    access: write,
  }),
  delete: defineRoute({
    operationId: 'deleteSchedule',
    method: 'DELETE',
    path: PATH,
    summary: 'Delete a schedule and its history',
    description: 'Its Scheduler schedule goes with it. With lock_version, refused if the schedule changed since.',
    tag,
    handler: 'schedules/delete',
    permission: 'data:write',
    request: {
      params: ScheduleIdParams,
      query: z.strictObject({
        lock_version: integerText('must be an integer', 0)
          .optional()
          .describe('Current lock_version; refused if the schedule changed since'),
      }),
    },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '10-1006', TOGGLE],
    access: write,
  }),
  pause: defineRoute({
    operationId: 'pauseSchedule',
    method: 'POST',
    path: `${PATH}/pause`,
    summary: 'Pause a schedule',
    description:
      'A paused schedule starts nothing (its Scheduler schedule is disabled); pausing a paused one changes nothing.',
    tag,
    handler: 'schedules/state#pause',
    permission: 'data:write',
    request: { params: ScheduleIdParams, body: ScheduleStateRequest },
    response: { status: 200, description: 'The schedule', body: ScheduleResponse },
    errors: ['10-404', '10-1006', TOGGLE],
    access: write,
  }),
  resume: defineRoute({
    operationId: 'resumeSchedule',
    method: 'POST',
    path: `${PATH}/resume`,
    summary: 'Resume a paused schedule',
    tag,
    handler: 'schedules/state#resume',
    permission: 'data:write',
    request: { params: ScheduleIdParams, body: ScheduleStateRequest },
    response: { status: 200, description: 'The schedule', body: ScheduleResponse },
    errors: ['10-404', '10-1006', TOGGLE],
    access: write,
  }),
  history: defineRoute({
    operationId: 'listScheduleRuns',
    method: 'GET',
    path: `${PATH}/runs`,
    summary: 'The history of a schedule',
    description:
      'One entry per tick (the newest 100 are kept): the build it STARTED (SUCCEEDED or FAILED once its run ended, with the run’s code), or SKIPPED or QUEUED while a build of the version ran, or REFUSED with the code a user’s start would have got.',
    tag,
    handler: 'schedules/history',
    permission: 'data:read',
    request: { params: ScheduleIdParams, query: listQuery(SCHEDULE_RUN_LIST_FIELDS) },
    response: { status: 200, description: 'A page of the history', body: ScheduleRunList },
    errors: ['10-404', TOGGLE],
    // A STARTED entry read after its build ended is stored with the outcome.
    access: { table: 'write' },
  }),
};
