/**
 * The twin's stand-in for the EventBridge rule of a recurring function (WorkerSpec.everyMinutes,
 * the OpenLineage outbox's drain): it runs only the functions that declare a rate, one run at a
 * time, and never again once stopped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DRAIN_LINEAGE_OUTBOX, RECORD_JOB_FAILURE } from '../../../functions/jobs';
import { runRecurringWorkers } from '../../../infra/local/recurring-workers';
import type { WorkerSpec } from '../../../shared/jobs/define-job';

/** Counts each function's runs; each run takes `runMs`, and the most runs in progress at once. */
function counting(runMs: number) {
  const runs = new Map<string, number>();
  let inProgress = 0;
  let most = 0;
  const load = async (worker: WorkerSpec) => async () => {
    runs.set(worker.name, (runs.get(worker.name) ?? 0) + 1);
    most = Math.max(most, ++inProgress);
    await sleep(runMs);
    inProgress -= 1;
  };
  return { runs, load, most: () => most };
}

describe('recurring functions on the twin', () => {
  it('runs the drain, which declares a rate, and not the failure recorder; one run at a time', async () => {
    expect(DRAIN_LINEAGE_OUTBOX.everyMinutes).toBe(1);
    const { runs, load, most } = counting(30);
    const stop = runRecurringWorkers([RECORD_JOB_FAILURE, DRAIN_LINEAGE_OUTBOX], load, 10);
    await sleep(200);
    await stop();
    const ran = runs.get(DRAIN_LINEAGE_OUTBOX.name) ?? 0;
    expect(ran).toBeGreaterThanOrEqual(2);
    expect(runs.has(RECORD_JOB_FAILURE.name)).toBe(false);
    expect(most()).toBe(1);
    await sleep(100);
    expect(runs.get(DRAIN_LINEAGE_OUTBOX.name)).toBe(ran);
  });

  it('runs nothing when turned off', async () => {
    const { runs, load } = counting(1);
    const stop = runRecurringWorkers([DRAIN_LINEAGE_OUTBOX], load, false);
    await sleep(50);
    await stop();
    expect(runs.size).toBe(0);
  });
});
