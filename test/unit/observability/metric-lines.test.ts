/**
 * Metric lines written beneath a request or a job (docs/operations.md): an engine task's turn
 * for a slot (how long it waited, whether it had to, whether it was refused one) and a call
 * through the connector interface (by connector and outcome), each carrying the tenant and
 * trace id of the work it was done for. Read from a metrics file of the test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeConnector } from '../../../shared/connectors/observed';
import { ENGINE_SLOTS, runInEngineProcess } from '../../../shared/engine/isolation/engine-process';
import { SlotWaitExpired } from '../../../shared/engine/isolation/slots';
import type { BindInput } from '../../../shared/engine/recipe-sql-bind';
import { AppError } from '../../../shared/errors/app-error';
import { LOCAL_METRICS_FILE_VARIABLE, withMetricContext } from '../../../shared/observability/metrics';
import { dimensionsOf, linesWith, metricsOf } from '../../support/metric-lines';

const folder = mkdtempSync(join(tmpdir(), 'metric-lines-'));
const file = join(folder, 'metrics.jsonl');
const saved = { file: process.env[LOCAL_METRICS_FILE_VARIABLE], disabled: process.env.POWERTOOLS_METRICS_DISABLED };

beforeAll(() => {
  process.env[LOCAL_METRICS_FILE_VARIABLE] = file;
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});
afterAll(() => {
  // The unit thread's other files write no lines.
  if (saved.file === undefined) delete process.env[LOCAL_METRICS_FILE_VARIABLE];
  else process.env[LOCAL_METRICS_FILE_VARIABLE] = saved.file;
  process.env.POWERTOOLS_METRICS_DISABLED = saved.disabled;
  rmSync(folder, { recursive: true, force: true });
});

/** The one line with metric `name` and these properties. */
function lineWith(name: string, properties: Readonly<Record<string, unknown>>) {
  const found = linesWith(file, name, properties);
  expect(found, `lines with ${name} and ${JSON.stringify(properties)}`).toHaveLength(1);
  return found[0]!;
}

describe('a call through the connector interface', () => {
  it('writes its outcome: ok, its code’s family, or other for a failure without a code; with the work’s tenant', async () => {
    const refused = new AppError('30-1110');
    const broken = new Error('socket hang up');
    await withMetricContext({ tenant_id: 'acme', trace_id: 'trace-connector' }, async () => {
      await expect(observeConnector('warehouse', 'tables', async () => 'listed')).resolves.toBe('listed');
      await expect(observeConnector('object_store', 'read', () => Promise.reject(refused))).rejects.toBe(refused);
      // A nested context adds to the outer one.
      await withMetricContext({ job_id: 'import-1' }, () =>
        expect(observeConnector('delta_sharing', 'read', () => Promise.reject(broken))).rejects.toBe(broken),
      );
    });

    const ok = lineWith('ConnectorCalls', { connector: 'warehouse' });
    expect(dimensionsOf(ok)).toEqual([['service', 'connector', 'outcome']]);
    expect(metricsOf(ok)).toEqual({ ConnectorCalls: 'Count', ConnectorLatency: 'Milliseconds' });
    expect(ok).toMatchObject({ outcome: 'ok', call: 'tables', tenant_id: 'acme', trace_id: 'trace-connector' });
    expect(lineWith('ConnectorCalls', { connector: 'object_store' })).toMatchObject({
      outcome: '30',
      code: '30-1110',
      call: 'read',
      tenant_id: 'acme',
    });
    const other = lineWith('ConnectorCalls', { connector: 'delta_sharing' });
    expect(other).toMatchObject({ outcome: 'other', tenant_id: 'acme', job_id: 'import-1' });
    expect(other.code).toBeUndefined();
  });
});

describe('an engine task’s turn for a slot', () => {
  const LIMITS = { memoryMb: 1024, timeoutMs: 20_000 };

  /** An input that never comes until `fail` is called: its task holds a slot meanwhile, and runs nothing. */
  function heldInput(): { readonly input: Promise<BindInput>; readonly fail: () => void } {
    let fail = () => {};
    const input = new Promise<BindInput>((_, reject) => {
      fail = () => reject(new AppError('20-1059', { params: [1, 1] }));
    });
    return { input, fail };
  }

  it('writes no wait when a slot is free, the wait of one that queued, and a refusal when none freed in time', async () => {
    const holders = Array.from({ length: ENGINE_SLOTS }, heldInput);
    const held = holders.map((holder, index) =>
      withMetricContext({ tenant_id: `holder-${index}` }, () =>
        runInEngineProcess('describe', holder.input, LIMITS).catch((error: unknown) => error),
      ),
    );

    // Every slot is taken: an analysis that may wait 100 ms is refused, and nothing of it runs.
    const refusedInput = heldInput();
    await expect(
      withMetricContext({ tenant_id: 'acme', trace_id: 'trace-refused' }, () =>
        runInEngineProcess('describe', refusedInput.input, { ...LIMITS, maxWaitMs: 100 }),
      ),
    ).rejects.toBeInstanceOf(SlotWaitExpired);
    const refused = lineWith('EngineSlotRefused', { trace_id: 'trace-refused' });
    expect(dimensionsOf(refused)).toEqual([['service']]);
    expect(metricsOf(refused)).toEqual({
      EngineSlotWait: 'Milliseconds',
      EngineSlotQueued: 'Count',
      EngineSlotRefused: 'Count',
    });
    expect(refused).toMatchObject({
      task: 'describe',
      ran_on: 'lambda',
      tenant_id: 'acme',
      EngineSlotQueued: 1,
      EngineSlotRefused: 1,
    });
    expect(refused.EngineSlotWait).toBeGreaterThanOrEqual(90);

    // One that may wait gets the slot a holder gives back.
    const waiterInput = heldInput();
    const waiter = withMetricContext({ trace_id: 'trace-waiter' }, () =>
      runInEngineProcess('describe', waiterInput.input, LIMITS).catch((error: unknown) => error),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    holders[0]!.fail();
    await held[0];
    waiterInput.fail();
    await waiter;
    const waited = lineWith('EngineSlotWait', { trace_id: 'trace-waiter' });
    expect(waited).toMatchObject({ task: 'describe', EngineSlotQueued: 1, EngineSlotRefused: 0 });
    expect(waited.EngineSlotWait).toBeGreaterThanOrEqual(150);

    for (const holder of holders.slice(1)) holder.fail();
    await Promise.all(held);
    const free = lineWith('EngineSlotWait', { tenant_id: 'holder-0' });
    expect(free).toMatchObject({ EngineSlotQueued: 0, EngineSlotRefused: 0 });
    expect(free.EngineSlotWait).toBeLessThan(50);
  });
});
