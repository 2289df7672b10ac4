/**
 * Transfers end to end over HTTP against the pricing DIM fake: a pricing_dim connection with a
 * type mapping, a pricing target, then a data table version and a released dataset's output
 * sent in batches; the fake holds exactly the source's rows with the mapped types. Transient
 * failures are retried without a row sent twice; a failure half-way records what the pricing
 * system took, aborts the upload and frees the target; a row the pricing system refuses is
 * named (30-4009); a limit's figures are whole in the message and in extraDetails (30-6003); a
 * retry with the same Idempotency-Key sends nothing again; the target cannot change while the
 * transfer runs (30-6005).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { dailyUsage, usagePeriod } from '../../../shared/usage';
import { getObject, queryFiles, sourceParquet } from '../../support/exports';
import { DATA_BUCKET } from '../../../infra/local/twin';
import type { ApiClient } from '../../support/api-client';
import { CUSTOMERS_CSV, executeAndWait, importedTable, joinGraph, ordersCsv } from '../datasets/run-fixtures';
import {
  dimConnection,
  pricingTarget,
  startTransferStack,
  transferAndWait,
  transferRequest,
  waitForTransfer,
  type TransferStack,
} from './fixtures';

/** Three batches of the transfer's 5,000 rows: two full, one not. */
const ROWS = 12_000;
const MAPPING = { id: 'STRING', day: 'DATETIME' };
const PROJECT = '\\Pricing\\Europe';

let stack: TransferStack;
let api: ApiClient;
let tableId: number;
let connectionId: number;
/** While set, transfer workers wait for it before they start: their transfers stay PENDING. */
let hold: Promise<void> | undefined;

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== 'transfer-to-pricing') return handler;
  return async (input, context) => {
    await hold;
    return handler(input, context);
  };
}

function pricesCsv(rows: number): string {
  const lines = ['id,sku,price,active,day'];
  for (let id = 1; id <= rows; id += 1)
    lines.push(
      `${id},sku-${id},${(id % 400) / 4},${id % 3 === 0},2026-0${(id % 9) + 1}-${String((id % 28) + 1).padStart(2, '0')}`,
    );
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  stack = await startTransferStack({ loadWorker });
  api = stack.env.admin;
  tableId = await importedTable(api, stack.env, pricesCsv(ROWS));
  connectionId = await dimConnection(api, stack.dim, { typeMapping: MAPPING });
}, 120_000);
afterAll(() => stack?.close());

/** The source version's rows as the pricing system must hold them: the mapping applied. */
async function expectedTableRows(): Promise<unknown[][]> {
  const { rows } = await queryFiles(
    [await sourceParquet(stack.env, tableId, 1)],
    "SELECT CAST(id AS VARCHAR) AS id, sku, price, active, strftime(day, '%Y-%m-%dT00:00:00') AS day FROM f0",
  );
  return rows.map((row) => Object.values(row));
}

async function bytesWrittenToday(): Promise<number> {
  const today = usagePeriod();
  const days = await dailyUsage(stack.env.admin.tenantId!, 'DATA_WRITTEN_BYTES', today, '9999-12-31');
  return days.get(today) ?? 0;
}

const tableSource = { source_type: 'datatable', source_id: 0, source_version: 1 } as const;
const uploadsOf = (jobId: string) => stack.dim.received.uploads.filter((upload) => upload.key === jobId);

describe('a data table version', () => {
  it('goes into the target’s table in batches, with the mapped types, exactly once', async () => {
    const target = await pricingTarget(api, connectionId, { table_path: 'Prices\\{dataset_name}_{export_id}\\' });
    const bytesBefore = await bytesWrittenToday();
    const done = await transferAndWait(api, transferRequest(target.id, { ...tableSource, source_id: tableId }));
    const table = (await api.call('getDataTable', { params: { data_table_id: tableId } })).body;
    const tablePath = `Prices\\${table.name}_${done.id}\\`;
    expect(done).toMatchObject({
      target_id: target.id,
      target_name: target.name,
      connection_id: connectionId,
      source_type: 'datatable',
      source_id: tableId,
      source_version: 1,
      source_name: table.name,
      project_path: PROJECT,
      table_path: tablePath,
      rows_total: ROWS,
      rows_sent: ROWS,
      rows_accepted: ROWS,
      execution: { status: 'COMPLETED', progress: { stage: 'DONE', percent: 100, rows: ROWS } },
    });
    expect(done.execution.progress.bytes_written).toBeGreaterThan(ROWS * 20);
    // What crossed the boundary counts as data transfer in the tenant's usage; the CPU time too.
    expect((await bytesWrittenToday()) - bytesBefore).toBe(done.execution.progress.bytes_written);
    expect(done.execution.progress.cpu_seconds).toBeGreaterThan(0);
    const columns = [
      { name: 'id', type: 'STRING' },
      { name: 'sku', type: 'STRING' },
      { name: 'price', type: 'DECIMAL' },
      { name: 'active', type: 'BOOLEAN' },
      { name: 'day', type: 'DATETIME' },
    ];
    expect(done.columns).toEqual(columns);
    const committed = stack.dim.committed(PROJECT, tablePath);
    expect(committed?.columns).toEqual(columns);
    expect(committed?.rows).toEqual(await expectedTableRows());
    const [upload, ...others] = uploadsOf(done.job_id);
    expect(others).toEqual([]);
    expect(upload).toMatchObject({ state: 'COMMITTED', sequences: [0, 1, 2] });

    const listed = await api.call('listTransfers', {
      query: { filter: `target_id eq ${target.id} and status eq 'COMPLETED'`, limit: '1' },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, limit: 1, items: [{ id: done.id, rows_accepted: ROWS }] });
  });

  it('is retried through transient failures of the pricing system without a row sent twice', async () => {
    const target = await pricingTarget(api, connectionId);
    await stack.dim.fail({ kind: 'transient', status: 503, times: 2 });
    const batchCalls = () => stack.dim.received.calls.filter((call) => call.includes('/batches/')).length;
    const before = batchCalls();
    const done = await transferAndWait(api, transferRequest(target.id, { ...tableSource, source_id: tableId }));
    await stack.dim.fail(undefined);
    expect(done.execution.status, JSON.stringify(done.execution.error)).toBe('COMPLETED');
    expect(batchCalls() - before).toBe(3 + 2);
    expect(stack.dim.committed(PROJECT, target.type === 'pricing' ? target.table_path : '')?.rows).toEqual(
      await expectedTableRows(),
    );
    expect(uploadsOf(done.job_id)).toMatchObject([{ state: 'COMMITTED', sequences: [0, 1, 2] }]);
  });

  it('that fails half-way says how many rows the pricing system took, and frees the target', async () => {
    const viaRelay = await dimConnection(api, stack.dim, { typeMapping: MAPPING, via: stack.relay.host });
    const target = await pricingTarget(api, viaRelay);
    stack.relay.refuseFrom = 1;
    try {
      const failed = await transferAndWait(api, transferRequest(target.id, { ...tableSource, source_id: tableId }));
      expect(failed).toMatchObject({
        rows_total: ROWS,
        rows_sent: 5_000,
        rows_accepted: 5_000,
        execution: { status: 'FAILED', error: { code: '30-4007' } },
      });
      // The transfer failed for good: its upload is aborted, not left open at the pricing system.
      expect(uploadsOf(failed.job_id)).toMatchObject([{ state: 'ABORTED', sequences: [0] }]);
      expect(stack.dim.received.calls).toContain(`POST /uploads/${uploadsOf(failed.job_id)[0]!.uploadId}/abort`);
      expect(stack.dim.committed(PROJECT, target.type === 'pricing' ? target.table_path : '')).toBeUndefined();
    } finally {
      stack.relay.refuseFrom = undefined;
    }
    const updated = await api.call('updateTarget', {
      params: { target_id: target.id },
      body: { ...target, description: 'after the failure' },
    });
    expect(updated.status, updated.text).toBe(200);
  });

  it('names the row and column the pricing system refused (30-4009), and aborts the upload', async () => {
    // Row 7,001 (of the second batch) has a day DuckDB reads but the pricing system's DATETIME does not take.
    const lines = pricesCsv(7_500).split('\n');
    lines[7_001] = lines[7_001]!.replace(/[^,]+$/, '10000-01-02');
    const oddTable = await importedTable(api, stack.env, lines.join('\n'));
    const target = await pricingTarget(api, connectionId);
    const failed = await transferAndWait(api, transferRequest(target.id, { ...tableSource, source_id: oddTable }));
    expect(failed).toMatchObject({
      rows_sent: 5_000,
      rows_accepted: 5_000,
      execution: {
        status: 'FAILED',
        error: {
          code: '30-4009',
          extraDetails: { row: 7_001, column: 'day', provider_status: 400, provider_error: 'invalid_row' },
        },
      },
    });
    expect(failed.execution.error?.message).toBe(
      `Type mapping validation failed: the pricing system (${new URL(stack.dim.host).host}) refused row 7001 of the source, column day (invalid_row)`,
    );
    expect(uploadsOf(failed.job_id)).toMatchObject([{ state: 'ABORTED' }]);
    expect(stack.dim.committed(PROJECT, target.type === 'pricing' ? target.table_path : '')).toBeUndefined();
  });

  it('says the table’s limit whole when it takes fewer rows (30-6003), with the figures in extraDetails', async () => {
    const target = await pricingTarget(api, connectionId);
    stack.dim.setTable(PROJECT, target.type === 'pricing' ? target.table_path : '', { maxRows: ROWS - 1 });
    const failed = await transferAndWait(api, transferRequest(target.id, { ...tableSource, source_id: tableId }));
    expect(failed.execution).toMatchObject({
      status: 'FAILED',
      error: {
        code: '30-6003',
        message: `Transfer failed due to pricing-system size limits (${ROWS} rows; the table takes at most ${ROWS - 1})`,
        extraDetails: { rows: ROWS, max_rows: ROWS - 1 },
      },
    });
    expect(uploadsOf(failed.job_id)).toEqual([]);
  });

  it('is started once for a retry with the same Idempotency-Key, and its rows sent once', async () => {
    const target = await pricingTarget(api, connectionId);
    const request = transferRequest(target.id, { ...tableSource, source_id: tableId });
    const key = `transfer-retry-${process.pid}`;
    const first = await api.call('startTransfer', { body: request, headers: { 'idempotency-key': key } });
    const retried = await api.call('startTransfer', { body: request, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(202);
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body.transfer_id).toBe(first.body.transfer_id);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const done = await waitForTransfer(api, first.body.transfer_id);
    expect(done.execution.status).toBe('COMPLETED');
    const again = await transferAndWait(api, request, key);
    expect(again.id).toBe(done.id);
    expect(uploadsOf(done.job_id)).toMatchObject([{ state: 'COMMITTED', sequences: [0, 1, 2] }]);
    expect(stack.dim.committed(PROJECT, target.type === 'pricing' ? target.table_path : '')?.rows).toHaveLength(ROWS);
    expect((await api.call('listTransfers', { query: { filter: `target_id eq ${target.id}` } })).body.total).toBe(1);
  });

  it('keeps its target from being updated or deleted while it runs (30-6005)', async () => {
    const target = await pricingTarget(api, connectionId);
    let release = (): void => undefined;
    hold = new Promise((resolve) => (release = resolve));
    const started = await api.call('startTransfer', {
      body: transferRequest(target.id, { ...tableSource, source_id: tableId }),
    });
    expect(started.status, started.text).toBe(202);
    const update = () =>
      api.call('updateTarget', { params: { target_id: target.id }, body: { ...target, description: 'moved' } });
    expect((await update()).problem.code).toBe('30-6005');
    expect((await api.call('deleteTarget', { params: { target_id: target.id } })).problem.code).toBe('30-6005');
    hold = undefined;
    release();
    expect((await waitForTransfer(api, started.body.transfer_id)).execution.status).toBe('COMPLETED');
    expect((await update()).status).toBe(200);
    expect((await api.call('deleteTarget', { params: { target_id: target.id } })).status).toBe(204);
  });
});

describe('a released dataset', () => {
  it('sends its output node’s full output, the latest released version standing for "released"', async () => {
    const [orders, customers] = await Promise.all([
      importedTable(api, stack.env, ordersCsv(300)),
      importedTable(api, stack.env, CUSTOMERS_CSV),
    ]);
    const graph = await joinGraph(api, { orders, customers });
    const target = await pricingTarget(api, connectionId);
    const request = transferRequest(target.id, {
      source_type: 'dataset',
      source_id: graph.datasetId,
      source_version: 'released',
    });
    expect((await api.call('startTransfer', { body: request })).problem.code).toBe('10-1044');
    expect((await executeAndWait(api, graph, graph.aggregate, false)).execution?.status).toBe('COMPLETED');
    const released = await api.call('releaseDatasetVersion', {
      params: { dataset_id: graph.datasetId, version_number: 1 },
    });
    expect(released.status, released.text).toBe(200);

    const done = await transferAndWait(api, request);
    expect(done).toMatchObject({ source_type: 'dataset', source_version: 1, execution: { status: 'COMPLETED' } });
    const output = await getObject(
      stack.env,
      DATA_BUCKET,
      `${stack.env.twin.admin.tenant_id}/datasets/${graph.datasetId}/g1/nodes/${graph.aggregate}/full/data.parquet`,
    );
    const expected = (await queryFiles([output], 'SELECT name, orders, total FROM f0')).rows.map((row) =>
      Object.values(row),
    );
    const committed = stack.dim.committed(PROJECT, target.type === 'pricing' ? target.table_path : '');
    expect(committed?.columns).toEqual([
      { name: 'name', type: 'STRING' },
      { name: 'orders', type: 'INTEGER' },
      { name: 'total', type: 'DECIMAL' },
    ]);
    expect(committed?.rows).toEqual(expected);
    expect(done).toMatchObject({ rows_total: expected.length, rows_accepted: expected.length });
  });
});
