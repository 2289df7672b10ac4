/**
 * Usage over HTTP: what GET /quota/usage answers is what the tenant's jobs recorded, CPU time
 * and the bytes that crossed the service's boundary (read from a source, written to a target),
 * day by day over the current contract's window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asBody, type ApiClient } from '../../support/api-client';
import { getObject, listKeys } from '../../support/exports';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createObjectStoreConnection, importAndWait, putObjects, tableOver, waitForJob } from '../../support/imports';

let env: TestTwin;
let api: ApiClient;

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const CSV = `id,region,amount\n${Array.from({ length: 500 }, (_, index) => `${index},r${index % 7},${index * 1.5}`).join('\n')}\n`;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing', 'exports'] });
  api = await env.clientFor('quota-usage', ['admin']);
  await putObjects(env, 'landing', { 'usage/a.csv': CSV });
});
afterAll(() => env?.close());

describe('usage of the current contract', () => {
  it('is zero on every day of the window before any job ran', async () => {
    const created = await api.call('createQuotaContract', {
      body: { name: 'usage', start_date: day(-2), end_date: day(28), cpu_time_hours: 2, data_transfer_gb: 1 },
    });
    expect(created.status, created.text).toBe(201);
    const usage = await api.call('getQuotaUsage', {});
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body).toMatchObject({
      contract_id: created.body.id,
      start_date: day(-2),
      end_date: day(28),
      overage_allowed: false,
      cpu_time_hours: { limit: 2, used: 0, remaining: 2 },
      data_transfer_gb: { limit: 1, used: 0, remaining: 1 },
    });
    // The series runs from the start to today.
    expect(usage.body.daily.map((entry) => entry.date)).toEqual([day(-2), day(-1), day(0)]);
    expect(usage.body.daily.every((entry) => entry.cpu_seconds === 0 && entry.data_transfer_bytes === 0)).toBe(true);
  });

  it('equals the CPU time and bytes the import and the export recorded', async () => {
    const tableId = await tableOver(api, env, 'landing/usage/');
    const version = await importAndWait(api, tableId);
    expect(version.execution.status).toBe('COMPLETED');
    const imported = version.execution.progress;
    expect(imported.bytes_read).toBe(Buffer.byteLength(CSV));
    expect(imported.cpu_seconds).toBeGreaterThan(0);

    const connectionId = await createObjectStoreConnection(api, env, { pathRestriction: 'exports/', write: true });
    const target = await api.call('createTarget', {
      body: asBody('createTarget', { name: 'usage', type: 'bucket', connection_id: connectionId, path: 'exports/u/' }),
    });
    expect(target.status, target.text).toBe(201);
    const started = await api.call('createExport', {
      body: { target_id: target.body.id, source_type: 'datatable', source_id: tableId, source_version: 1 },
    });
    expect(started.status, started.text).toBe(202);
    const exported = await waitForJob(
      () => api.call('getExport', { params: { export_id: started.body.export_id } }),
      (body) => body.execution,
    );
    expect(exported.execution.status).toBe('COMPLETED');
    const [key] = await listKeys(env, 'exports', 'u/');
    const written = (await getObject(env, 'exports', key!)).length;
    expect(exported.execution.progress.bytes_written).toBe(written);

    const usage = (await api.call('getQuotaUsage', {})).body;
    const today = usage.daily.at(-1)!;
    expect(today.date).toBe(day(0));
    expect(today.data_transfer_bytes).toBe(Buffer.byteLength(CSV) + written);
    const cpuSeconds = imported.cpu_seconds! + exported.execution.progress.cpu_seconds!;
    expect(today.cpu_seconds).toBeCloseTo(cpuSeconds, 6);
    expect(usage.cpu_time_hours.used).toBeCloseTo(cpuSeconds / 3600, 9);
    expect(usage.cpu_time_hours.remaining).toBeCloseTo(2 - cpuSeconds / 3600, 9);
    expect(usage.data_transfer_gb.used).toBeCloseTo((Buffer.byteLength(CSV) + written) / 1e9, 12);
  });
});
