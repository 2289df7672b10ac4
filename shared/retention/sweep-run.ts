import * as z from 'zod';
import { is } from '../db/expressions';
import { PlatformRecords } from '../db/platform-records';
import { newSweep, sweepStep, type SweepCursor, type SweepOptions, type SweptThing } from './sweep';

/**
 * A sweep across invocations: the cursor of the sweep in progress is kept in one platform
 * record, so the invocation that runs out of time leaves it and the next one goes on. The
 * daily schedule starts a sweep (or goes on with one that has not finished); the continuation
 * schedule only goes on.
 */
const StoredCursor = z.object({
  sweep_id: z.string(),
  as_of: z.string(),
  after_tenant: z.string().optional(),
  tenant: z
    .object({ id: z.string(), phase: z.enum(['DATA_TABLES', 'DATASETS']), after_id: z.int().optional() })
    .optional(),
});
const runs = new PlatformRecords('RETENTION_SWEEP', StoredCursor);
const CURRENT = 'current';

export interface SweepInvocationResult {
  readonly sweep_id: string | null;
  readonly complete: boolean;
  readonly deleted: SweptThing[];
  readonly failed: number;
}

/** One invocation: goes on with the sweep in progress, or starts one at `start` if given. */
export async function runSweepInvocation(
  start: Date | undefined,
  options: SweepOptions,
): Promise<SweepInvocationResult> {
  const inProgress = await runs.find(CURRENT);
  const cursor: SweepCursor | undefined = inProgress ?? (start ? newSweep(start) : undefined);
  if (!cursor) return { sweep_id: null, complete: true, deleted: [], failed: 0 };
  if (!inProgress) await runs.putIf(CURRENT, cursor, is.absent('pk'));
  const { cursor: next, deleted, failed } = await sweepStep(cursor, options);
  // Only the invocation that still holds the sweep's cursor moves it; a concurrent one's step is
  // harmless (every deletion is idempotent) and its cursor is dropped.
  const held = is.equal('sweep_id', cursor.sweep_id);
  if (next) await runs.putIf(CURRENT, next, held);
  else await runs.removeIf(CURRENT, held);
  return { sweep_id: cursor.sweep_id, complete: next === null, deleted, failed: failed.length };
}

/** A whole sweep at `asOf` in this process (the twin's timer, `npm run sweep`, tests). */
export async function sweepToEnd(
  asOf: Date,
  options: Partial<SweepOptions> = {},
): Promise<{ sweep_id: string; deleted: SweptThing[]; failed: number }> {
  const first = newSweep(asOf);
  let cursor: SweepCursor | null = first;
  const deleted: SweptThing[] = [];
  let failed = 0;
  while (cursor) {
    const step = await sweepStep(cursor, { outOfTime: options.outOfTime ?? (() => false), signal: options.signal });
    deleted.push(...step.deleted);
    failed += step.failed.length;
    cursor = step.cursor;
  }
  return { sweep_id: first.sweep_id, deleted, failed };
}
