/**
 * A tenant's own OpenLineage endpoint, set by a platform admin: the URL checked (credentials,
 * a query, a loopback or private host the allow-list does not name: 10-1400 naming `url`,
 * never repeated), only a platform admin may read or set it, and then that tenant's run events
 * go there while another tenant's still go to the stage's endpoint. An endpoint that became a
 * forbidden host is refused by the outbound guard when an event is sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryCounts } from '../../../shared/openlineage/emit';
import { storeEndpoint } from '../../../shared/openlineage/endpoints';
import type { ApiClient } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { startLineageTwin, type LineageReceiver, type LineageTwin } from '../../support/lineage-receiver';
import { CUSTOMERS_CSV, importedTable } from '../datasets/run-fixtures';

let lineage: LineageTwin;
let env: TestTwin;
let tenantA: ApiClient;
let tenantB: ApiClient;
let stage: LineageReceiver;
let own: LineageReceiver;

beforeAll(async () => {
  lineage = await startLineageTwin();
  ({ env, stage, own } = lineage);
  tenantA = env.admin;
  tenantB = await env.clientFor('lineage-endpoint-b', ['admin']);
}, 120_000);

afterAll(() => lineage?.close());

const tenantOf = (api: ApiClient) => ({ tenant_id: api.tenantId! });
const setEndpoint = (url: string | null) =>
  env.platformAdmin.call('setTenantOpenLineageEndpoint', { params: tenantOf(tenantA), body: { url } });

/** The events of the import of `tableId` a receiver got, as `<eventType>`, once its COMPLETE came (at most 10 s). */
async function importEvents(into: LineageReceiver, api: ApiClient, tableId: number): Promise<string[]> {
  const name = `${api.tenantId!}/data-tables/${tableId}`;
  const of = () =>
    into
      .events()
      .filter((event) => event.outputs[0]?.name === name)
      .map((event) => event.eventType);
  for (let waited = 0; waited < 10_000 && !of().includes('COMPLETE'); waited += 100) await sleep(100);
  return of();
}

describe('a tenant’s own OpenLineage endpoint', () => {
  it('refuses a URL events may not go to with 10-1400 naming url, never repeating it', async () => {
    for (const refused of [
      'https://user:s3cr3t@lineage.example.com/api/v1/lineage',
      'https://lineage.example.com/api/v1/lineage?api_key=s3cr3t',
      'https://lineage.example.com/api/v1/lineage#s3cr3t',
      'ftp://lineage.example.com/',
      'not a url',
      // Loopback, private and metadata hosts the allow-list does not name; plain http to a host it does not name.
      `http://127.0.0.1:${own.port + 1}/api/v1/lineage`,
      'https://127.0.0.1/api/v1/lineage',
      'https://localhost/api/v1/lineage',
      'https://10.0.0.7/api/v1/lineage',
      'https://169.254.169.254/latest',
      'https://[::1]/api/v1/lineage',
      'http://lineage.example.com/api/v1/lineage',
    ]) {
      const answer = await setEndpoint(refused);
      expect(answer.status, refused).toBe(400);
      expect(answer.problem.code, refused).toBe('10-1400');
      expect(Object.keys(answer.problem.extraDetails ?? {}), refused).toEqual(['url']);
      expect(answer.text, refused).not.toContain('s3cr3t');
    }
    const read = await env.platformAdmin.call('getTenantOpenLineageEndpoint', { params: tenantOf(tenantA) });
    expect(read.body).toEqual({ tenant_id: tenantA.tenantId, url: null, uses: 'stage' });
    // The stage's URL is the operator's: never shown.
    expect(read.text).not.toContain(String(stage.port));
  });

  it('is a platform admin’s to read and set, and a registered tenant’s', async () => {
    for (const caller of [tenantA, tenantB]) {
      const set = await caller.call('setTenantOpenLineageEndpoint', {
        params: tenantOf(tenantA),
        body: { url: own.url },
      });
      expect(set.status, set.text).toBe(403);
      expect(set.problem.code).toBe('10-403');
      const read = await caller.call('getTenantOpenLineageEndpoint', { params: tenantOf(tenantA) });
      expect(read.problem.code).toBe('10-403');
    }
    const unknown = await env.platformAdmin.call('setTenantOpenLineageEndpoint', {
      params: { tenant_id: 'nobody-here' },
      body: { url: own.url },
    });
    expect(unknown.problem.code).toBe('50-1003');
  });

  it('sends the tenant’s events there, another tenant’s to the stage’s endpoint', async () => {
    const set = await setEndpoint(own.url);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ tenant_id: tenantA.tenantId, url: own.url, uses: 'tenant' });
    const read = await env.platformAdmin.call('getTenantOpenLineageEndpoint', { params: tenantOf(tenantA) });
    expect(read.body).toEqual(set.body);

    const [tableA, tableB] = await Promise.all([
      importedTable(tenantA, env, CUSTOMERS_CSV),
      importedTable(tenantB, env, CUSTOMERS_CSV),
    ]);
    expect(await importEvents(own, tenantA, tableA)).toEqual(['START', 'COMPLETE']);
    expect(await importEvents(stage, tenantB, tableB)).toEqual(['START', 'COMPLETE']);
    expect(stage.events().filter((event) => event.job.name.startsWith(`${tenantA.tenantId!}.`))).toEqual([]);
    expect(own.events().filter((event) => event.job.name.startsWith(`${tenantB.tenantId!}.`))).toEqual([]);

    // Cleared: the stage's endpoint again.
    expect((await setEndpoint(null)).body).toEqual({ tenant_id: tenantA.tenantId, url: null, uses: 'stage' });
    const tableAgain = await importedTable(tenantA, env, CUSTOMERS_CSV);
    expect(await importEvents(stage, tenantA, tableAgain)).toEqual(['START', 'COMPLETE']);
  });

  it('goes through the outbound guard when an event is sent, whatever was stored', async () => {
    // A stored endpoint the guard refuses now (as a name that resolves to loopback would be): written past the route's check.
    await storeEndpoint(tenantA.tenantId!, new URL(`http://localhost:${own.port}/api/v1/lineage`));
    const [ownBefore, failedBefore] = [own.events().length, deliveryCounts.failed];
    const tableId = await importedTable(tenantA, env, CUSTOMERS_CSV);
    for (let waited = 0; waited < 10_000 && deliveryCounts.failed < failedBefore + 2; waited += 100) await sleep(100);
    expect(deliveryCounts.failed).toBeGreaterThanOrEqual(failedBefore + 2);
    expect(own.events().length).toBe(ownBefore);
    expect(
      stage.events().some((event) => event.outputs[0]?.name === `${tenantA.tenantId!}/data-tables/${tableId}`),
    ).toBe(false);
    await storeEndpoint(tenantA.tenantId!, null);
  });
});
