/**
 * The rules of a transfer over HTTP, each from its real cause: the feature toggle (10-1501),
 * the quota (20-1042, 20-1043), the target (30-6002, 10-1042), the source (30-6001, 10-1044,
 * 10-1045, 30-6006), the type mapping (30-4009); the pricing system's limits and its DIM's
 * GET /import as job errors before any row is sent (30-6003, 30-6004, 10-1046); and the races
 * of a transfer's start with its target's update or delete (30-6005).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import { keys } from '../../../shared/db/keys';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import type { ApiClient } from '../../support/api-client';
import { createObjectStoreConnection, importAndWait, tableOver } from '../../support/imports';
import { CUSTOMERS_CSV, importedTable, joinGraph } from '../datasets/run-fixtures';
import {
  dimConnection,
  pricingTarget,
  startTransferStack,
  transferAndWait,
  transferRequest,
  turnOn,
  type TransferStack,
} from './fixtures';

const PROJECT = '\\Pricing\\Europe';
const CSV = 'id,sku,price\n1,a,1.5\n2,b,2.5\n3,c,3.5\n';

let stack: TransferStack;
let api: ApiClient;
let tableId: number;
let connectionId: number;
/** While set, transfer workers wait for it before they start. */
let hold: Promise<void> | undefined;

async function loadWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  const handler = await loadWorkerHandler(worker);
  if (worker.name !== 'transfer-to-pricing') return handler;
  return async (input, context) => {
    await hold;
    return handler(input, context);
  };
}

beforeAll(async () => {
  stack = await startTransferStack({ loadWorker });
  api = stack.env.admin;
  tableId = await importedTable(api, stack.env, CSV);
  connectionId = await dimConnection(api, stack.dim);
}, 120_000);
afterAll(() => stack?.close());

const fromTable = (targetId: number, id = tableId, version = 1) =>
  transferRequest(targetId, { source_type: 'datatable', source_id: id, source_version: version });
const refusal = async (request: ReturnType<typeof fromTable>) => {
  const response = await api.call('startTransfer', { body: request });
  expect(response.status, response.text).toBeGreaterThanOrEqual(400);
  return response.problem;
};
const tablePathOf = (target: { readonly type: string; readonly table_path?: string }) => target.table_path ?? '';

describe('the request', () => {
  it('needs the transfers feature (10-1501) and a quota left (20-1042, 20-1043)', async () => {
    const off = await stack.env.clientFor('transfers-off', ['editor']);
    expect((await off.call('startTransfer', { body: fromTable(1) })).problem).toMatchObject({
      code: '10-1501',
      detail: 'Feature disabled unless feature flag transfers is on',
    });
    expect((await off.call('listTransfers')).problem.code).toBe('10-1501');
    expect((await off.call('getTransfer', { params: { transfer_id: 1 } })).problem.code).toBe('10-1501');

    for (const [tenant, limits, code] of [
      ['transfers-no-data', { cpu_time_hours: 100, data_transfer_gb: 0 }, '20-1042'],
      ['transfers-no-cpu', { cpu_time_hours: 0, data_transfer_gb: 100 }, '20-1043'],
    ] as const) {
      const client = await stack.env.clientFor(tenant, ['admin']);
      const today = new Date().toISOString().slice(0, 10);
      const created = await client.call('createQuotaContract', {
        body: { name: 'none left', start_date: today, end_date: '2099-01-01', ...limits, overage_allowed: false },
      });
      expect(created.status, created.text).toBe(201);
      await turnOn(stack.env, tenant, 'transfers');
      await turnOn(stack.env, tenant, 'quota_enforcement');
      expect((await client.call('startTransfer', { body: fromTable(1) })).problem.code).toBe(code);
      expect((await client.call('listTransfers')).body.total).toBe(0);
    }
  });

  it('needs a pricing target (30-6002, 10-1042)', async () => {
    expect((await refusal(fromTable(987_654))).code).toBe('30-6002');
    const bucketConnection = await createObjectStoreConnection(api, stack.env, { write: true });
    const bucket = await api.call('createTarget', {
      body: { name: 'not pricing', type: 'bucket', connection_id: bucketConnection, path: 'landing/out/' },
    });
    expect(bucket.status, bucket.text).toBe(201);
    expect((await refusal(fromTable(bucket.body.id))).code).toBe('10-1042');
  });

  it('needs a source that exists (30-6001): table, version, dataset; a table version by number (10-1400)', async () => {
    const target = await pricingTarget(api, connectionId);
    expect((await refusal(fromTable(target.id, 987_654))).code).toBe('30-6001');
    expect((await refusal(fromTable(target.id, tableId, 9))).code).toBe('30-6001');
    const dataset = transferRequest(target.id, { source_type: 'dataset', source_id: 987_654, source_version: 1 });
    expect((await refusal(dataset)).code).toBe('30-6001');
    const released = transferRequest(target.id, {
      source_type: 'datatable',
      source_id: tableId,
      source_version: 'released',
    });
    expect(await refusal(released)).toMatchObject({
      code: '10-1400',
      extraDetails: { source_version: 'must be a version number for a data table' },
    });
  });

  it('needs a released dataset version (10-1044)', async () => {
    const target = await pricingTarget(api, connectionId);
    const customers = await importedTable(api, stack.env, CUSTOMERS_CSV);
    const graph = await joinGraph(api, { orders: tableId, customers });
    const draft = transferRequest(target.id, { source_type: 'dataset', source_id: graph.datasetId, source_version: 1 });
    expect(await refusal(draft)).toMatchObject({
      code: '10-1044',
      detail: 'Transfer allowed only for released datasets',
    });
  });

  it('needs a COMPLETED table version (10-1045) whose size is known (30-6006)', async () => {
    const target = await pricingTarget(api, connectionId);
    const empty = await tableOver(api, stack.env, 'landing/no-such-folder/');
    expect((await importAndWait(api, empty)).execution.status).toBe('FAILED');
    expect((await refusal(fromTable(target.id, empty))).code).toBe('10-1045');

    // A version item restored from a backup without its metadata: COMPLETED, size unknown.
    const restored = await importedTable(api, stack.env, CSV);
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.version(stack.env.admin.tenantId!, 'DATA_TABLE', restored, 1),
        UpdateExpression: 'REMOVE metadata',
      }),
    );
    expect(await refusal(fromTable(target.id, restored))).toMatchObject({
      code: '30-6006',
      detail: 'Table size not calculated yet; retry later',
    });
  });

  it('refuses a column the type mapping cannot send (30-4009) and starts nothing', async () => {
    const mapped = await dimConnection(api, stack.dim, { typeMapping: { sku: 'INTEGER' } });
    const target = await pricingTarget(api, mapped);
    expect(await refusal(fromTable(target.id))).toMatchObject({ code: '30-4009', extraDetails: { column: 'sku' } });
    expect((await api.call('listTransfers', { query: { filter: `target_id eq ${target.id}` } })).body.total).toBe(0);
  });
});

describe('the pricing system, before any row is sent', () => {
  it('refuses more rows (30-6003) or columns (30-6004) than its table takes, naming the numbers', async () => {
    const short = await pricingTarget(api, connectionId);
    stack.dim.setTable(PROJECT, tablePathOf(short), { maxRows: 2 });
    const rows = await transferAndWait(api, fromTable(short.id));
    expect(rows).toMatchObject({
      rows_sent: 0,
      rows_accepted: 0,
      execution: {
        status: 'FAILED',
        error: {
          code: '30-6003',
          message: 'Transfer failed due to pricing-system size limits (3 rows; the table takes at most 2)',
          extraDetails: { rows: 3, max_rows: 2 },
        },
      },
    });
    const narrow = await pricingTarget(api, connectionId);
    stack.dim.setTable(PROJECT, tablePathOf(narrow), { maxColumns: 2 });
    const columns = await transferAndWait(api, fromTable(narrow.id));
    expect(columns.execution.error).toMatchObject({
      code: '30-6004',
      message: 'Transfer failed due to pricing-system size limits (2 columns and 1000000 rows)',
      extraDetails: { columns: 3, max_columns: 2 },
    });
    for (const failed of [rows, columns])
      expect(stack.dim.received.uploads.filter((upload) => upload.key === failed.job_id)).toEqual([]);
  });

  it('fails with 10-1046 naming the DIM when its GET /import refuses the table', async () => {
    const locked = await pricingTarget(api, connectionId);
    stack.dim.setTable(PROJECT, tablePathOf(locked), { state: 'LOCKED' });
    const failed = await transferAndWait(api, fromTable(locked.id));
    expect(failed.execution).toMatchObject({ status: 'FAILED', error: { code: '10-1046' } });
    expect(failed.execution.error?.message).toContain(`(${new URL(stack.dim.host).host})`);
    expect(failed.execution.error?.message).toContain('LOCKED');
  });
});

describe('races between a transfer and its target’s edits', () => {
  it('lets exactly one of a start and an update made against the same lock_version win', async () => {
    let release = (): void => undefined;
    hold = new Promise((resolve) => (release = resolve));
    try {
      for (let round = 0; round < 5; round += 1) {
        const target = await pricingTarget(api, connectionId);
        const [started, updated] = await Promise.all([
          api.call('startTransfer', { body: fromTable(target.id) }),
          api.call('updateTarget', {
            params: { target_id: target.id },
            body: { ...target, description: `round ${round}` },
          }),
        ]);
        if (updated.status === 200) expect(started.problem.code).toBe('10-1006');
        else {
          expect(updated.problem.code).toBe('30-6005');
          expect(started.status, started.text).toBe(202);
        }
      }
    } finally {
      hold = undefined;
      release();
    }
  });

  it('lets either the delete or the start win, never both', async () => {
    let release = (): void => undefined;
    hold = new Promise((resolve) => (release = resolve));
    try {
      for (let round = 0; round < 5; round += 1) {
        const target = await pricingTarget(api, connectionId);
        const [started, deleted] = await Promise.all([
          api.call('startTransfer', { body: fromTable(target.id) }),
          api.call('deleteTarget', { params: { target_id: target.id } }),
        ]);
        if (deleted.status === 204) {
          expect(started.problem.code).toBe('30-6002');
        } else {
          expect(deleted.problem.code).toBe('30-6005');
          expect(started.status, started.text).toBe(202);
          expect((await api.call('getTarget', { params: { target_id: target.id } })).status).toBe(200);
        }
      }
    } finally {
      hold = undefined;
      release();
    }
  });
});
