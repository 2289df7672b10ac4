/**
 * Schedules over HTTP on one twin (docs/schedules.md), its Scheduler stand-in firing on the
 * twin's clock, which the tests move: a cron tick builds the dataset as a user's run does; a
 * table's new version builds the datasets waiting for it, once; a tick while a build runs is
 * skipped or queued; a schedule of a deleted dataset records the refusal and pauses; a quota
 * refusal is recorded once per tick, not retried; tenants see only their own; the toggle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { handler as tick } from '../../../functions/schedules/tick';
import { reconcileSchedules } from '../../../shared/schedules/reconcile';
import { syncSchedule } from '../../../shared/schedules/scheduler';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importAndWait, waitForJob } from '../../support/imports';
import {
  createSchedule,
  cronEveryMinute,
  datasetOver,
  fireNext,
  importedTable,
  MINUTE,
  runsOf,
  runsUntil,
  succeeded,
  tenant,
  unique,
} from './support';

let env: TestTwin;
/** While set, a recipe run's worker waits for it: a build that stays live (overlap tests). */
let runGate: Promise<void> | undefined;

beforeAll(async () => {
  env = await startTestTwin({
    buckets: ['landing'],
    // The tests move the clock; nothing fires by itself.
    schedulerCheckEveryMs: 0,
    loadWorker: async (worker): Promise<WorkerFunction> => {
      const run = await loadWorkerHandler(worker);
      if (worker.name !== 'run-recipe') return run;
      return async (input, context) => {
        await runGate;
        return run(input, context);
      };
    },
  });
});
afterAll(() => env?.close());

describe('schedules as a resource', () => {
  it('checks cron, time zone and dataset; lists with ListQuery; keeps lock_version; pauses and deletes with the Scheduler', async () => {
    const api = await tenant(env, 'sched-crud');
    const { tableId } = await importedTable(env, api);
    const { datasetId } = await datasetOver(api, tableId);
    const base = { name: unique('nightly'), dataset_id: datasetId };

    const badCron = await api.call('createSchedule', {
      body: { ...base, trigger: { type: 'cron', expression: '0 25 * * *', time_zone: 'Europe/Paris' } },
    });
    expect(badCron.status).toBe(400);
    expect(badCron.problem.code).toBe('10-1400');
    expect(JSON.stringify(badCron.problem.extraDetails)).toContain('hour: 25 is outside 0-23');
    const badZone = await api.call('createSchedule', {
      body: { ...base, trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Atlantis' } },
    });
    expect(badZone.status).toBe(400);
    expect(JSON.stringify(badZone.problem.extraDetails)).toContain('IANA time zone');
    const noDataset = await api.call('createSchedule', {
      body: { ...base, dataset_id: 999_999, trigger: cronEveryMinute },
    });
    expect(noDataset.status).toBe(404);
    expect(noDataset.problem.code).toBe('10-404');

    const schedule = await createSchedule(api, {
      ...base,
      trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Paris' },
    });
    expect(schedule).toMatchObject({ graph_version: 'latest', overlap: 'skip', paused: false, lock_version: 0 });
    // 06:00 in Paris is 04:00 or 05:00 UTC, whichever the date's offset says.
    expect(new Date(schedule.next_run_date ?? '').getUTCMinutes()).toBe(0);
    expect([4, 5]).toContain(new Date(schedule.next_run_date ?? '').getUTCHours());
    expect(env.twin.scheduler.names()).toContainEqual({ group: 'dps-local', name: `s.sched-crud.${schedule.id}` });
    const rate = await createSchedule(api, {
      ...base,
      name: unique('hourly'),
      trigger: { type: 'rate', every: 1, unit: 'hours' },
    });

    const listed = await api.call('listSchedules', { query: { filter: "trigger_type eq 'rate'", sort: '-id' } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((item) => item.id)).toEqual([rate.id]);

    const stale = await api.call('updateSchedule', {
      params: { schedule_id: schedule.id },
      body: { ...schedule, lock_version: 5, overlap: 'queue' },
    });
    expect(stale.status).toBe(409);
    expect(stale.problem.code).toBe('10-1006');
    const paused = await api.call('pauseSchedule', {
      params: { schedule_id: schedule.id },
      body: { lock_version: schedule.lock_version },
    });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, next_run_date: null, lock_version: 1 });
    const resumed = await api.call('resumeSchedule', {
      params: { schedule_id: schedule.id },
      body: { lock_version: 1 },
    });
    expect(resumed.body).toMatchObject({ paused: false, lock_version: 2 });

    const deleted = await api.call('deleteSchedule', {
      params: { schedule_id: schedule.id },
      query: { lock_version: 2 },
    });
    expect(deleted.status, deleted.text).toBe(204);
    expect(env.twin.scheduler.names()).not.toContainEqual({ group: 'dps-local', name: `s.sched-crud.${schedule.id}` });
    expect((await api.call('getSchedule', { params: { schedule_id: schedule.id } })).status).toBe(404);
    // The rate schedule would build every hour of the later tests' clock.
    expect((await api.call('deleteSchedule', { params: { schedule_id: rate.id }, query: {} })).status).toBe(204);
  });
});

describe('ticks', () => {
  it('a cron tick builds the graph version whole, as a user’s run; its history says so', async () => {
    const api = await tenant(env, 'sched-cron');
    const { tableId } = await importedTable(env, api);
    const { datasetId, outputNode } = await datasetOver(api, tableId);
    const schedule = await createSchedule(api, {
      name: unique('morning'),
      dataset_id: datasetId,
      trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Paris' },
    });
    await fireNext(env, schedule);
    const runs = await runsUntil(env, api, schedule.id, succeeded);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      cause: 'cron',
      outcome: 'SUCCEEDED',
      dataset_id: datasetId,
      graph_version_number: 1,
      node_id: outputNode,
      code: null,
    });
    expect(runs[0]!.date).toBe(schedule.next_run_date);
    const status = await api.call('getDatasetNodeRunStatus', {
      params: { dataset_id: datasetId, version_number: 1, node_id: outputNode },
    });
    expect(status.body).toMatchObject({ run_state: 'SUCCEEDED', use_sample: false });
    expect(status.body.execution?.job_id).toBe(runs[0]!.job_id);
  });

  it('a new COMPLETED version of a table builds the datasets waiting for it, once each', async () => {
    const api = await tenant(env, 'sched-new-version');
    const source = await importedTable(env, api);
    const other = await importedTable(env, api);
    const waiting = await datasetOver(api, source.tableId);
    const unrelated = await datasetOver(api, other.tableId);
    const onSource = await createSchedule(api, {
      name: unique('on-source'),
      dataset_id: waiting.datasetId,
      trigger: { type: 'on_new_version', data_table_id: source.tableId },
    });
    const onOther = await createSchedule(api, {
      name: unique('on-other'),
      dataset_id: unrelated.datasetId,
      trigger: { type: 'on_new_version', data_table_id: other.tableId },
    });
    expect(onSource.next_run_date).toBeNull();

    const version = await importAndWait(api, source.tableId);
    expect(version.execution.status).toBe('COMPLETED');
    const runs = await runsUntil(env, api, onSource.id, succeeded);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      cause: 'on_new_version',
      outcome: 'SUCCEEDED',
      data_table_id: source.tableId,
      data_version_number: version.version_number,
      dataset_id: waiting.datasetId,
    });
    expect(await runsOf(api, onOther.id)).toEqual([]);

    // The Scheduler delivering the hand-over again (at least once) starts nothing more.
    await tick({
      tenant_id: 'sched-new-version',
      schedule_id: onSource.id,
      cause: 'on_new_version',
      data_table_id: source.tableId,
      data_version_number: version.version_number,
    });
    await env.twin.scheduler.advance(MINUTE);
    expect(await runsOf(api, onSource.id)).toHaveLength(1);
    expect(await runsOf(api, onOther.id)).toEqual([]);
  });

  it('while a build of the version runs, a tick is skipped (overlap skip) or queued until it ends (overlap queue)', async () => {
    const api = await tenant(env, 'sched-overlap');
    const { tableId } = await importedTable(env, api);
    const { datasetId, outputNode } = await datasetOver(api, tableId);
    let open: () => void = () => undefined;
    runGate = new Promise<void>((resolve) => (open = resolve));
    const skip = await createSchedule(api, { name: unique('skip'), dataset_id: datasetId, trigger: cronEveryMinute });
    const queue = await createSchedule(api, {
      name: unique('queue'),
      dataset_id: datasetId,
      trigger: cronEveryMinute,
      overlap: 'queue',
    });
    try {
      const node = { dataset_id: datasetId, version_number: 1, node_id: outputNode };
      const userRun = await api.call('executeDatasetNode', { params: node, body: { use_sample: false } });
      expect(userRun.status, userRun.text).toBe(202);
      await fireNext(env, skip);
      expect((await runsOf(api, skip.id)).map((run) => [run.outcome, run.code])).toEqual([['SKIPPED', '20-1034']]);
      expect((await runsOf(api, queue.id)).map((run) => [run.outcome, run.code])).toEqual([['QUEUED', '20-1034']]);
      // No more minutes of these two: only the queued tick is left to fire.
      for (const schedule of [skip, queue]) {
        const current = (await api.call('getSchedule', { params: { schedule_id: schedule.id } })).body;
        await api.call('pauseSchedule', {
          params: { schedule_id: schedule.id },
          body: { lock_version: current.lock_version },
        });
      }
      await env.twin.scheduler.advance(MINUTE);
      expect((await runsOf(api, queue.id))[0]?.outcome).toBe('QUEUED');
    } finally {
      open();
      runGate = undefined;
    }
    await waitForJob(
      () =>
        api.call('getDatasetNodeRunStatus', {
          params: { dataset_id: datasetId, version_number: 1, node_id: outputNode },
        }),
      (status) => status.execution ?? { status: 'PENDING' },
    );
    await env.twin.scheduler.advance(MINUTE);
    const queued = await runsUntil(env, api, queue.id, succeeded);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ cause: 'cron', outcome: 'SUCCEEDED', graph_version_number: 1 });
  });

  it('a schedule of a deleted dataset records 10-404 and pauses, so it is not refused again and again', async () => {
    const api = await tenant(env, 'sched-orphan');
    const { tableId } = await importedTable(env, api);
    const { datasetId } = await datasetOver(api, tableId);
    const schedule = await createSchedule(api, {
      name: unique('orphan'),
      dataset_id: datasetId,
      trigger: cronEveryMinute,
    });
    expect((await api.call('deleteDataset', { params: { dataset_id: datasetId }, query: {} })).status).toBe(204);
    await fireNext(env, schedule);
    const runs = await runsOf(api, schedule.id);
    expect(runs.map((run) => [run.outcome, run.code])).toEqual([['REFUSED', '10-404']]);
    expect((await api.call('getSchedule', { params: { schedule_id: schedule.id } })).body).toMatchObject({
      paused: true,
      next_run_date: null,
    });
    await env.twin.scheduler.advance(5 * MINUTE);
    expect(await runsOf(api, schedule.id)).toHaveLength(1);
  });

  it('a start the quota refuses is recorded with its code, once per tick, never retried', async () => {
    const api = await tenant(env, 'sched-quota');
    const { tableId } = await importedTable(env, api);
    const { datasetId } = await datasetOver(api, tableId);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const contract = await api.call('createQuotaContract', {
      body: {
        name: 'none left',
        start_date: day(-1),
        end_date: day(400),
        cpu_time_hours: 1000,
        data_transfer_gb: 0,
        overage_allowed: false,
      },
    });
    expect(contract.status, contract.text).toBe(201);
    await env.setFeature('quota_enforcement', 'sched-quota', 'on');
    const schedule = await createSchedule(api, {
      name: unique('hourly'),
      dataset_id: datasetId,
      trigger: { type: 'rate', every: 1, unit: 'hours' },
    });
    await fireNext(env, schedule);
    expect((await runsOf(api, schedule.id)).map((run) => [run.outcome, run.code])).toEqual([['REFUSED', '20-1042']]);
    // Nothing retries it in between: the next entry is the next hour's tick.
    await env.twin.scheduler.advance(30 * MINUTE);
    expect(await runsOf(api, schedule.id)).toHaveLength(1);
    await env.twin.scheduler.advance(31 * MINUTE);
    expect((await runsOf(api, schedule.id)).map((run) => run.outcome)).toEqual(['REFUSED', 'REFUSED']);
  });
});

describe('the Scheduler kept in step', () => {
  it('the reconciliation deletes a Scheduler schedule whose schedule is gone, and keeps the others', async () => {
    const api = await tenant(env, 'sched-reconcile');
    const { tableId } = await importedTable(env, api);
    const { datasetId } = await datasetOver(api, tableId);
    const kept = await createSchedule(api, { name: unique('kept'), dataset_id: datasetId, trigger: cronEveryMinute });
    const gone = await createSchedule(api, { name: unique('gone'), dataset_id: datasetId, trigger: cronEveryMinute });
    for (const schedule of [kept, gone])
      await api.call('pauseSchedule', { params: { schedule_id: schedule.id }, body: { lock_version: 0 } });
    const survivor = { group: 'dps-local', name: `s.sched-reconcile.${gone.id}` };
    expect((await api.call('deleteSchedule', { params: { schedule_id: gone.id }, query: {} })).status).toBe(204);
    // As if the delete's Scheduler call had failed: its disabled schedule is back, and would never tick.
    await syncSchedule('sched-reconcile', kept.id);
    const { CreateScheduleCommand, SchedulerClient } = await import('@aws-sdk/client-scheduler');
    const client = new SchedulerClient({ endpoint: env.twin.endpoints.scheduler });
    await client.send(
      new CreateScheduleCommand({
        Name: survivor.name,
        GroupName: 'dps-local',
        ScheduleExpression: 'cron(* * * * ? *)',
        State: 'DISABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: 'arn:aws:lambda:us-east-1:000000000000:function:dps-local-schedule-tick',
          RoleArn: 'arn:aws:iam::000000000000:role/dps-local-scheduler',
          Input: JSON.stringify({ tenant_id: 'sched-reconcile', schedule_id: gone.id, cause: 'cron' }),
        },
      }),
    );
    client.destroy();
    expect(env.twin.scheduler.names()).toContainEqual(survivor);
    const { deleted } = await reconcileSchedules();
    expect(deleted).toEqual([survivor.name]);
    expect(env.twin.scheduler.names()).not.toContainEqual(survivor);
    expect(env.twin.scheduler.names()).toContainEqual({ group: 'dps-local', name: `s.sched-reconcile.${kept.id}` });
  });
});

describe('tenants and the toggle', () => {
  it('another tenant sees none of a tenant’s schedules, their history or their datasets', async () => {
    const owner = await tenant(env, 'sched-owner');
    const { tableId } = await importedTable(env, owner);
    const { datasetId } = await datasetOver(owner, tableId);
    const schedule = await createSchedule(owner, {
      name: unique('mine'),
      dataset_id: datasetId,
      trigger: cronEveryMinute,
    });
    const stranger = await tenant(env, 'sched-stranger');
    expect((await stranger.call('getSchedule', { params: { schedule_id: schedule.id } })).problem.code).toBe('10-404');
    expect((await stranger.call('listScheduleRuns', { params: { schedule_id: schedule.id } })).status).toBe(404);
    expect((await stranger.call('listSchedules', {})).body.total).toBe(0);
    const onTheirs = await stranger.call('createSchedule', {
      body: { name: unique('theirs'), dataset_id: datasetId, trigger: cronEveryMinute },
    });
    expect(onTheirs.status).toBe(404);
    const deleted = await stranger.call('deleteSchedule', { params: { schedule_id: schedule.id }, query: {} });
    expect(deleted.status).toBe(404);
    expect((await owner.call('getSchedule', { params: { schedule_id: schedule.id } })).status).toBe(200);
    expect((await owner.call('deleteSchedule', { params: { schedule_id: schedule.id }, query: {} })).status).toBe(204);
  });

  it('with the toggle off the routes answer 10-1501 and a tick records the refusal', async () => {
    const api = await tenant(env, 'sched-toggle');
    const { tableId } = await importedTable(env, api);
    const { datasetId } = await datasetOver(api, tableId);
    const schedule = await createSchedule(api, {
      name: unique('later'),
      dataset_id: datasetId,
      trigger: cronEveryMinute,
    });
    await env.setFeature('schedules', 'sched-toggle', 'off');
    const refused = await api.call('createSchedule', {
      body: { name: unique('refused'), dataset_id: datasetId, trigger: cronEveryMinute },
    });
    expect(refused.status).toBe(501);
    expect(refused.problem.code).toBe('10-1501');
    expect(refused.problem.detail).toContain('schedules');
    expect((await api.call('listSchedules', {})).status).toBe(501);
    await fireNext(env, schedule);
    await env.setFeature('schedules', 'sched-toggle', 'on');
    const runs = await runsOf(api, schedule.id);
    expect(runs.map((run) => [run.outcome, run.code])).toEqual([['REFUSED', '10-1501']]);
  });
});
