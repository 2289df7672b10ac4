/**
 * A `released` schedule over HTTP on one twin (docs/schedules.md): its tick rebuilds the
 * released graph into a new release, as a user would (a new version from the released one,
 * built whole on the table's newest data, then released), and records SUCCEEDED only once
 * released; an `error` data-quality rule its new output fails keeps the old release and
 * records the release's refusal, 90-1002.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importCompleted, putObjects } from '../../support/imports';
import {
  createSchedule,
  datasetOver,
  fireNext,
  importedTable,
  releasedAsUser,
  runsUntil,
  succeeded,
  tenant,
  unique,
} from './support';

let env: TestTwin;

beforeAll(async () => {
  // The tests move the clock; nothing fires by itself.
  env = await startTestTwin({ buckets: ['landing'], schedulerCheckEveryMs: 0 });
});
afterAll(() => env?.close());

/** A released dataset over a table, and a new version of the table (rows 3 and 4) imported since the release. */
async function releasedThenNewData(api: Awaited<ReturnType<typeof tenant>>) {
  const { tableId, folder } = await importedTable(env, api);
  const { datasetId, outputNode } = await datasetOver(api, tableId);
  await releasedAsUser(api, datasetId, outputNode);
  await putObjects(env, 'landing', { [`${folder}/b.csv`]: 'id,price\n3,30\n4,40\n' });
  await importCompleted(api, tableId);
  return { datasetId, outputNode };
}

async function versionsOf(api: Awaited<ReturnType<typeof tenant>>, datasetId: number) {
  const listed = await api.call('listDatasetVersions', { params: { dataset_id: datasetId } });
  expect(listed.status, listed.text).toBe(200);
  return listed.body.items.map((version) => [version.version_number, version.release_status]);
}

describe('a released schedule', () => {
  it('rebuilds the released graph from the table’s newest data into a new release', async () => {
    const api = await tenant(env, 'sched-released');
    const { datasetId, outputNode } = await releasedThenNewData(api);
    const schedule = await createSchedule(api, {
      name: unique('release-nightly'),
      dataset_id: datasetId,
      graph_version: 'released',
      trigger: { type: 'cron', expression: '0 6 * * *', time_zone: 'Europe/Paris' },
    });
    await fireNext(env, schedule);
    const runs = await runsUntil(env, api, schedule.id, succeeded);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      cause: 'cron',
      outcome: 'SUCCEEDED',
      dataset_id: datasetId,
      graph_version_number: 2,
      node_id: outputNode,
      code: null,
    });
    expect(Object.keys(runs[0]!)).not.toContain('release');
    // Version 2 is the new release; version 1 was released and stays so.
    expect(await versionsOf(api, datasetId)).toEqual([
      [1, true],
      [2, true],
    ]);
    const node = { dataset_id: datasetId, version_number: 2, node_id: outputNode };
    const status = await api.call('getDatasetNodeRunStatus', { params: node });
    expect(status.body.execution?.job_id).toBe(runs[0]!.job_id);
    expect(status.body.run_by).toMatchObject({ id: `schedule-${schedule.id}` });
    const preview = await api.call('previewDatasetNode', { params: node, query: { use_sample: 'false' } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.row_count).toBe(4);
    const old = await api.call('previewDatasetNode', { params: { ...node, version_number: 1 }, query: {} });
    expect(old.body.row_count).toBe(2);

    // The next tick makes the next release, from version 2.
    const current = (await api.call('getSchedule', { params: { schedule_id: schedule.id } })).body;
    await fireNext(env, current);
    const next = await runsUntil(env, api, schedule.id, (all) => all.length === 2 && succeeded(all));
    expect(next.map((run) => [run.graph_version_number, run.outcome])).toEqual([
      [2, 'SUCCEEDED'],
      [3, 'SUCCEEDED'],
    ]);
    expect((await versionsOf(api, datasetId)).at(-1)).toEqual([3, true]);
  });

  it('keeps the old release and records 90-1002 when the new output fails an error rule', async () => {
    const api = await tenant(env, 'sched-released-rule');
    await env.setFeature('data_quality', 'sched-released-rule', 'on');
    const { datasetId, outputNode } = await releasedThenNewData(api);
    const rule = await api.call('createQualityRule', {
      body: {
        name: 'price at most 25',
        kind: 'range',
        severity: 'error',
        dataset_id: datasetId,
        node_id: outputNode,
        column: 'price',
        max: 25,
      },
    });
    expect(rule.status, rule.text).toBe(201);
    const schedule = await createSchedule(api, {
      name: unique('release-checked'),
      dataset_id: datasetId,
      graph_version: 'released',
      trigger: { type: 'rate', every: 1, unit: 'days' },
    });
    await fireNext(env, schedule);
    const runs = await runsUntil(env, api, schedule.id, succeeded);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: 'FAILED', code: '90-1002', graph_version_number: 2 });
    expect(runs[0]!.message).toContain('price at most 25');
    // The build ran (COMPLETED, its output checked); its version stays a draft beside the old release.
    const node = { dataset_id: datasetId, version_number: 2, node_id: outputNode };
    const status = await api.call('getDatasetNodeRunStatus', { params: node });
    expect(status.body.execution?.status).toBe('COMPLETED');
    expect(await versionsOf(api, datasetId)).toEqual([
      [1, true],
      [2, false],
    ]);
  });
});
