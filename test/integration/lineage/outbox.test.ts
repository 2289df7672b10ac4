/**
 * The end events an API route sends for a tenant with its own OpenLineage endpoint (ABORT on a
 * cancel, FAIL of a job a reader found abandoned) go through the outbox: the route queues them
 * (it has no outbound guard), and the drain (functions/jobs/drain-lineage-outbox.ts, every
 * minute when deployed) delivers each once, through the guard; an endpoint that keeps refusing
 * gets a bounded number of tries, then the event is counted lost. The twin's timer for the drain
 * is off here: the test runs it, as the stage's rule would, to see each drain's effect.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as drain } from '../../../functions/jobs/drain-lineage-outbox';
import { dataVersions } from '../../../shared/data-tables/versions';
import { runIdOf } from '../../../shared/openlineage/build';
import { DELIVERY, deliveryCounts } from '../../../shared/openlineage/emit';
import { RunEvent } from '../../../shared/openlineage/events';
import { OUTBOX } from '../../../shared/openlineage/outbox-drain';
import type { ApiClient } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { startLineageTwin, type LineageReceiver, type LineageTwin } from '../../support/lineage-receiver';
import { putObjects, tableOver } from '../../support/imports';
import { OPENLINEAGE_SCHEMAS_PRESENT, openLineageValidator } from '../../support/openlineage-schemas';
import { CUSTOMERS_CSV } from '../datasets/run-fixtures';
import { lastSignOfLifeAnHourAgo } from '../../support/abandoned-job';

let lineage: LineageTwin;
let env: TestTwin;
let api: ApiClient;
let stage: LineageReceiver;
let own: LineageReceiver;

beforeAll(async () => {
  lineage = await startLineageTwin({ recurringEveryMs: false });
  ({ env, stage, own } = lineage);
  api = env.admin;
  const set = await env.platformAdmin.call('setTenantOpenLineageEndpoint', {
    params: { tenant_id: api.tenantId! },
    body: { url: own.url },
  });
  expect(set.status, set.text).toBe(200);
  await putObjects(env, 'landing', { [`outbox-${process.pid}/data.csv`]: CUSTOMERS_CSV });
}, 120_000);

afterAll(() => lineage?.close());

/** The run's events a list holds, as RunEvents. */
const ofRun = (events: readonly unknown[], jobId: string) =>
  events.map((event) => RunEvent.parse(event)).filter((event) => event.run.runId === runIdOf(jobId));

/** A PENDING import no worker picks up, cancelled twice through the API: its job id. */
async function cancelledImport(): Promise<string> {
  const tableId = await tableOver(api, env, `landing/outbox-${process.pid}/`);
  const { version, job } = await dataVersions.begin(api.tenantId!, { id: 'test' }, tableId);
  const params = { data_table_id: tableId, version_number: version.version_number };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const cancelled = await api.call('cancelDataVersionImport', { params });
    expect(cancelled.body.execution?.status, cancelled.text).toBe('ABORTED');
  }
  return job.job_id;
}

describe('the OpenLineage outbox of a tenant’s own endpoint', () => {
  it('delivers a cancelled job’s ABORT there once, when the drain runs', async () => {
    const jobId = await cancelledImport();
    await sleep(500);
    // Queued by the route, not sent by it.
    expect(ofRun(own.tried, jobId)).toEqual([]);
    await drain();
    await drain();
    const aborts = ofRun(own.accepted, jobId);
    expect(aborts.map((event) => event.eventType)).toEqual(['ABORT']);
    expect(aborts[0]?.run.facets?.errorMessage?.message).toMatch(/^10-444: /);
    expect(ofRun(stage.tried, jobId)).toEqual([]);
    if (OPENLINEAGE_SCHEMAS_PRESENT) expect(openLineageValidator().problems(ofRun(own.accepted, jobId)[0])).toEqual([]);
  });

  it('delivers the FAIL of a job a reader found abandoned there once', async () => {
    const tableId = await tableOver(api, env, `landing/outbox-${process.pid}/`);
    const { job } = await dataVersions.begin(api.tenantId!, { id: 'test' }, tableId);
    // The worker's last sign of life was an hour ago.
    await lastSignOfLifeAnHourAgo(job.subject);
    // Two imports race to take the table over: each records the abandoned one's failure, one write wins.
    await Promise.all([1, 2].map(() => api.call('batchCreateDataVersions', { body: { data_table_ids: [tableId] } })));
    await Promise.all([drain(), drain()]);
    await drain();
    const ended = ofRun(own.accepted, job.job_id);
    expect(ended.map((event) => event.eventType)).toEqual(['FAIL']);
    expect(ended[0]?.run.facets?.errorMessage?.message).toMatch(/^10-1047: /);
    expect(ofRun(stage.tried, job.job_id)).toEqual([]);
    // The import that took the table over completes, its events sent by its worker (before the next test refuses them).
    const name = `${api.tenantId!}/data-tables/${tableId}`;
    const completed = () =>
      own.accepted
        .map((event) => RunEvent.parse(event))
        .some((e) => e.eventType === 'COMPLETE' && e.outputs[0]?.name === name);
    for (let waited = 0; waited < 20_000 && !completed(); waited += 100) await sleep(100);
    expect(completed()).toBe(true);
  });

  it('tries an endpoint that refuses a bounded number of times, then counts the event lost', async () => {
    own.refusing = true;
    try {
      const jobId = await cancelledImport();
      const failedBefore = deliveryCounts.failed;
      for (let pass = 1; pass < OUTBOX.drains; pass += 1) {
        await drain();
        expect(ofRun(own.tried, jobId)).toHaveLength(pass * DELIVERY.attempts);
        expect(deliveryCounts.failed).toBe(failedBefore);
      }
      await drain();
      await drain();
      // Every try was the one ABORT; then it was counted and is no longer queued.
      const tried = ofRun(own.tried, jobId);
      expect(tried).toHaveLength(OUTBOX.drains * DELIVERY.attempts);
      expect(new Set(tried.map((event) => event.eventType))).toEqual(new Set(['ABORT']));
      expect(deliveryCounts.failed).toBe(failedBefore + 1);
      own.refusing = false;
      await drain();
      expect(ofRun(own.tried, jobId)).toHaveLength(OUTBOX.drains * DELIVERY.attempts);
    } finally {
      own.refusing = false;
    }
  });
});
