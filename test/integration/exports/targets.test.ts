/**
 * Exports to targets end to end over HTTP: a data table version written to a bucket target's
 * rendered folder and read back, the target locked while the export may write (30-6005, and
 * the race of an export's start with the target's update), a table target whose warehouse
 * cannot be reached, and the refusals of the request. Exports through the Google and
 * Snowflake connectors: connector-targets.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { asBody, type ApiClient, type RequestBody, type ResponseBody } from '../../support/api-client';
import { getObject, queryFiles, sourceParquet } from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createObjectStoreConnection, importCompleted, putObjects, tableOver, waitForJob } from '../../support/imports';
import { createTarget, sentBack } from '../targets/fixtures';

let env: TestTwin;
let api: ApiClient;
let tableId: number;
let target: ResponseBody<'getTarget'>;
/** While set, export workers wait for it before they start: their exports stay PENDING. */
let hold: Promise<void> | undefined;

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== 'export-to-target') return handler;
  return async (input, context) => {
    await hold;
    return handler(input, context);
  };
}

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing', 'exports'], loadWorker, retryIntervalMs: 10 });
  api = env.admin;
  await putObjects(env, 'landing', { 'sales/a.csv': 'id,region,paid\n1,north,true\n2,south,false\n3,east,true\n' });
  tableId = await tableOver(api, env, 'landing/sales/');
  await importCompleted(api, tableId);
  const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
  const created = await api.call('createTarget', {
    body: asBody('createTarget', {
      name: 'lake',
      type: 'bucket',
      connection_id: connectionId,
      path: 'exports/{dataset_name}/v{version}/',
    }),
  });
  expect(created.status, created.text).toBe(201);
  target = created.body;
});

afterAll(async () => {
  await env?.close();
});

function exportRequest(overrides: Partial<RequestBody<'createExport'>> = {}): RequestBody<'createExport'> {
  return asBody('createExport', {
    target_id: target.id,
    source_type: 'datatable',
    source_id: tableId,
    source_version: 1,
    ...overrides,
  });
}

function waitForExport(exportId: number): Promise<ResponseBody<'getExport'>> {
  return waitForJob(
    () => api.call('getExport', { params: { export_id: exportId } }),
    (body) => body.execution,
  );
}

async function tableName(): Promise<string> {
  return String((await api.call('getDataTable', { params: { data_table_id: tableId } })).body.name);
}

describe('export to a bucket target', () => {
  it("writes the version to the target's rendered folder, columns and booleans as asked, and reads back as the source", async () => {
    const started = await api.call('createExport', {
      body: exportRequest({ columns: ['paid', 'id'], cast_boolean_to_integer: true }),
    });
    expect(started.status, started.text).toBe(202);
    const done = await waitForExport(started.body.export_id);
    const name = await tableName();
    const key = `${name}/v1/${name}-v1.parquet`;
    expect(done).toMatchObject({
      id: started.body.export_id,
      target_id: target.id,
      target_name: 'lake',
      source_name: name,
      source_type: 'datatable',
      columns: ['paid', 'id'],
      cast_boolean_to_integer: true,
      exported_table_name: key,
      data_target_details: { bucket: 'exports', key, path: `exports/${name}/v1/` },
      execution: { status: 'COMPLETED' },
    });
    const exported = await queryFiles([await getObject(env, 'exports', key)], 'SELECT * FROM f0');
    const expected = await queryFiles(
      [await sourceParquet(env, tableId, 1)],
      'SELECT CAST(paid AS INTEGER) AS paid, id FROM f0',
    );
    expect(exported).toEqual(expected);
    expect(exported.rows).toEqual([
      { paid: 1, id: '1' },
      { paid: 0, id: '2' },
      { paid: 1, id: '3' },
    ]);

    const listed = await api.call('listExports', {
      query: { filter: `target_id eq ${target.id} and status eq 'COMPLETED'` },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((item) => item.id)).toContain(started.body.export_id);
  });

  it('keeps the target from changing while the export may write to it (30-6005), and frees it when the export ends', async () => {
    let release = (): void => undefined;
    hold = new Promise((resolve) => (release = resolve));
    const started = await api.call('createExport', { body: exportRequest() });
    expect(started.status, started.text).toBe(202);
    const current = (await api.call('getTarget', { params: { target_id: target.id } })).body;
    const update = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(current, { description: 'changed' }),
    });
    expect(update.problem.code).toBe('30-6005');
    expect((await api.call('deleteTarget', { params: { target_id: target.id } })).problem.code).toBe('30-6005');
    hold = undefined;
    release();
    expect((await waitForExport(started.body.export_id)).execution.status).toBe('COMPLETED');
    const updated = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: sentBack(current, { description: 'changed' }),
    });
    expect(updated.status, updated.text).toBe(200);
    target = updated.body;
  });

  it("an export's start and the target's update race: exactly one wins", async () => {
    const current = (await api.call('getTarget', { params: { target_id: target.id } })).body;
    const [started, update] = await Promise.all([
      api.call('createExport', { body: exportRequest() }),
      api.call('updateTarget', {
        params: { target_id: target.id },
        body: sentBack(current, { description: `raced ${Date.now()}` }),
      }),
    ]);
    if (started.status === 202) {
      expect(update.problem.code).toBe('30-6005');
      await waitForExport(started.body.export_id);
    } else {
      expect(update.status, update.text).toBe(200);
      expect(started.problem.code).toBe('10-1006');
    }
    target = (await api.call('getTarget', { params: { target_id: target.id } })).body;
  });
});

describe('refusals and failures', () => {
  it('refuses a missing target (30-6002), a pricing target (10-1042), an unknown column (20-1031)', async () => {
    expect((await api.call('createExport', { body: exportRequest({ target_id: 999_999 }) })).problem.code).toBe(
      '30-6002',
    );
    const pricing = await createTarget(api, env.twin.s3.endpoint, 'pricing');
    expect(
      (await api.call('createExport', { body: exportRequest({ target_id: pricing.target.id }) })).problem.code,
    ).toBe('10-1042');
    const unknown = await api.call('createExport', { body: exportRequest({ columns: ['nope'] }) });
    expect(unknown.status).toBe(422);
    expect(unknown.problem.code).toBe('20-1031');
    expect((await api.call('getExport', { params: { export_id: 999_999 } })).status).toBe(404);
  });

  it('fails an export to a table target whose warehouse cannot be reached (30-1002), and releases the target', async () => {
    const table = await createTarget(api, env.twin.s3.endpoint, 'table');
    const started = await api.call('createExport', { body: exportRequest({ target_id: table.target.id }) });
    expect(started.status, started.text).toBe(202);
    const done = await waitForExport(started.body.export_id);
    expect(done.execution).toMatchObject({ status: 'FAILED', error: { code: '30-1002' } });
    const current = (await api.call('getTarget', { params: { target_id: table.target.id } })).body;
    expect(
      (
        await api.call('updateTarget', {
          params: { target_id: table.target.id },
          body: sentBack(current, { description: 'free again' }),
        })
      ).status,
    ).toBe(200);
  });
});
