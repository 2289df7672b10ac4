/**
 * What the schedules' tests (schedules.test.ts) share: tenants with schedules on, a table and a
 * dataset over it, schedules and their history, and moving the twin's clock to a tick.
 */
import { expect } from 'vitest';
import { retentionNow } from '../../../shared/retention/clock';
import type { ApiClient, RequestBody, ResponseBody } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { importCompleted, putObjects, tableOver, waitForJob } from '../../support/imports';
import { tableRecipeGraph } from '../datasets/run-fixtures';
import { createRecipe } from '../recipes/fixtures';

export const MINUTE = 60_000;
let sequence = 0;
export const unique = (prefix: string) => `${prefix}-${(sequence += 1)}`;

/** A tenant with schedules on. */
export async function tenant(env: TestTwin, name: string): Promise<ApiClient> {
  const api = await env.clientFor(name, ['admin']);
  await env.setFeature('schedules', name, 'on');
  return api;
}

/** A table imported once from a small CSV of its own folder. */
export async function importedTable(env: TestTwin, api: ApiClient): Promise<{ tableId: number; folder: string }> {
  const folder = unique(`sched-${api.tenantId ?? 't'}`);
  await putObjects(env, 'landing', { [`${folder}/a.csv`]: 'id,price\n1,10\n2,20\n' });
  const tableId = await tableOver(api, env, `landing/${folder}/`);
  await importCompleted(api, tableId);
  return { tableId, folder };
}

/** A dataset whose version 1 reads the table through one recipe node (its output). */
export async function datasetOver(api: ApiClient, tableId: number): Promise<{ datasetId: number; outputNode: number }> {
  const recipe = await createRecipe(api, { aliases: ['t'], recipe_version: { code: 'SELECT id, price FROM t' } });
  const graph = await tableRecipeGraph(api, { tableId, recipeId: recipe.id, alias: 't', name: unique('scheduled') });
  return { datasetId: graph.datasetId, outputNode: graph.recipeNode };
}

/** Builds version 1 whole on full data as a user does, and releases it. */
export async function releasedAsUser(api: ApiClient, datasetId: number, outputNode: number): Promise<void> {
  const node = { dataset_id: datasetId, version_number: 1, node_id: outputNode };
  const started = await api.call('executeDatasetNode', { params: node, body: { use_sample: false } });
  expect(started.status, started.text).toBe(202);
  const run = await waitForJob(
    () => api.call('getDatasetNodeRunStatus', { params: node }),
    (status) => status.execution ?? { status: 'PENDING' },
  );
  expect(run.execution?.status).toBe('COMPLETED');
  const released = await api.call('releaseDatasetVersion', { params: { dataset_id: datasetId, version_number: 1 } });
  expect(released.status, released.text).toBe(200);
}

export type Schedule = ResponseBody<'createSchedule'>;
export type Runs = ResponseBody<'listScheduleRuns'>['items'];

export async function createSchedule(api: ApiClient, body: RequestBody<'createSchedule'>): Promise<Schedule> {
  const response = await api.call('createSchedule', { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export const cronEveryMinute = { type: 'cron', expression: '* * * * *', time_zone: 'UTC' } as const;

export async function runsOf(api: ApiClient, scheduleId: number): Promise<Runs> {
  const response = await api.call('listScheduleRuns', { params: { schedule_id: scheduleId } });
  expect(response.status, response.text).toBe(200);
  return response.body.items;
}

/** Moves the twin's clock to just past the schedule's next_run_date, firing what is due on the way. */
export async function fireNext(env: TestTwin, schedule: Pick<Schedule, 'next_run_date'>): Promise<void> {
  const next = Date.parse(schedule.next_run_date ?? '');
  expect(Number.isNaN(next), 'next_run_date').toBe(false);
  await env.twin.scheduler.advance(Math.max(0, next - retentionNow()) + 1_000);
}

/** Polls the history until `done` holds (bounded): builds and hand-overs end in their own time. */
export async function runsUntil(
  env: TestTwin,
  api: ApiClient,
  scheduleId: number,
  done: (runs: Runs) => boolean,
): Promise<Runs> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const runs = await runsOf(api, scheduleId);
    if (done(runs)) return runs;
    if (Date.now() > deadline) throw new Error(`history not as expected: ${JSON.stringify(runs)}`);
    await env.twin.scheduler.runDue();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const succeeded = (runs: Runs) => runs.length > 0 && runs.every((run) => run.outcome !== 'STARTED');
