/**
 * Quota enforcement over HTTP, while the tenant's quota_enforcement toggle is on: a start while
 * the current contract's data or CPU is used up is refused (20-1042, 20-1043) and leaves
 * nothing behind, also when several starts race at the edge; allowing overage lets it start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOGGLE_CACHE_MS } from '../../../shared/features/store';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { importAndWait, putObjects, tableOver } from '../../support/imports';

let env: TestTwin;

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const TOGGLE = 'quota_enforcement';

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  await putObjects(env, 'landing', { 'edge/a.csv': 'id,name\n1,a\n2,b\n3,c\n' });
});
afterAll(() => env?.close());

/** Turns enforcement on or off for the tenant, and waits until every route sees it. */
async function enforce(tenantId: string, on: boolean): Promise<void> {
  const params = { toggle_name: TOGGLE, tenant_id: tenantId };
  const response = on
    ? await env.platformAdmin.call('setFeatureToggleOverride', { params, body: { strategy: 'on' } })
    : await env.platformAdmin.call('clearFeatureToggleOverride', { params });
  expect(response.status, response.text).toBeLessThan(300);
  await new Promise((resolve) => setTimeout(resolve, TOGGLE_CACHE_MS + 100));
}

async function contract(
  api: ApiClient,
  limits: { cpu_time_hours: number; data_transfer_gb: number },
  overage: boolean,
) {
  const created = await api.call('createQuotaContract', {
    body: { name: 'edge', start_date: day(-1), end_date: day(30), ...limits, overage_allowed: overage },
  });
  expect(created.status, created.text).toBe(201);
}

const startImport = (api: ApiClient, tableId: number) =>
  api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } });

async function versionCount(api: ApiClient, tableId: number): Promise<number> {
  const list = await api.call('listDataVersions', { params: { data_table_id: tableId } });
  expect(list.status, list.text).toBe(200);
  return list.body.total;
}

describe('data quota', () => {
  it('refuses every start racing at the edge, starts nothing, and accepts once overage is allowed', async () => {
    const api = await env.clientFor('quota-edge', ['admin']);
    const tables = await Promise.all([0, 1, 2, 3].map(() => tableOver(api, env, 'landing/edge/')));
    // No data at all, but overage allowed: the first import runs and uses the quota up.
    await contract(api, { cpu_time_hours: 1000, data_transfer_gb: 0 }, true);
    await enforce('quota-edge', true);
    expect((await importAndWait(api, tables[0]!)).execution.status).toBe('COMPLETED');
    expect((await api.call('setQuotaOverage', { body: { overage_allowed: false } })).status).toBe(200);

    const racing = await Promise.all([
      ...tables.map((tableId) => startImport(api, tableId)),
      api.call('analyseDataVersionSchema', {
        params: { data_table_id: tables[0]!, version_number: 1 },
        body: { depth: 'SHALLOW' },
      }),
    ]);
    for (const response of racing) {
      expect(response.status, response.text).toBe(400);
      expect(response.problem).toMatchObject({ code: '20-1042', detail: 'Data quota limit reached' });
    }
    // Nothing half-started: no version, no analysis.
    expect(await Promise.all(tables.map((tableId) => versionCount(api, tableId)))).toEqual([1, 0, 0, 0]);
    const analysis = await api.call('getSchemaAnalysisStatus', {
      params: { data_table_id: tables[0]!, version_number: 1 },
    });
    expect(analysis.problem).toMatchObject({ status: 404, code: '20-1025' });

    expect((await api.call('setQuotaOverage', { body: { overage_allowed: true } })).status).toBe(200);
    expect((await importAndWait(api, tables[1]!)).execution.status).toBe('COMPLETED');
  });
});

describe('CPU quota', () => {
  it('refuses a start with 20-1043 while enforced, and lets it start once the toggle is off', async () => {
    const api = await env.clientFor('quota-cpu', ['admin']);
    const tableId = await tableOver(api, env, 'landing/edge/');
    await contract(api, { cpu_time_hours: 0, data_transfer_gb: 1000 }, false);
    await enforce('quota-cpu', true);
    const refused = await startImport(api, tableId);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.problem).toMatchObject({ code: '20-1043', detail: 'CPU quota limit reached' });
    expect(await versionCount(api, tableId)).toBe(0);

    await enforce('quota-cpu', false);
    const { execution } = await importAndWait(api, tableId);
    expect(execution.status, JSON.stringify(execution)).toBe('COMPLETED');
  });
});
