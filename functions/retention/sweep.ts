import { logger } from '../../shared/log';
import { recordSweep } from '../../shared/observability/metrics';
import { runSweepInvocation, type SweepInvocationResult } from '../../shared/retention/sweep-run';
import { reconcileSchedules } from '../../shared/schedules/reconcile';

/**
 * The retention sweep's function (docs/retention.md). The daily EventBridge schedule invokes
 * it with its scheduled event, whose `time` is the sweep's moment: it starts a sweep (or goes
 * on with one not finished). The continuation schedule invokes it with `{"continue_only":
 * true}`: it goes on with a sweep in progress and otherwise does nothing.
 */
export interface SweepEvent {
  /** The scheduled event's time (ISO 8601). */
  readonly time?: string;
  readonly continue_only?: boolean;
}

/** Time left when a step stops and hands the rest to the next invocation: one table's deletions fit in it. */
export const STOP_BEFORE_END_MS = 60_000;

export async function handler(
  event: SweepEvent,
  context: { readonly getRemainingTimeInMillis: () => number },
): Promise<SweepInvocationResult> {
  const start = event.continue_only ? undefined : new Date(event.time ?? Date.now());
  // The daily run also removes Scheduler schedules left by deleted schedules (docs/schedules.md).
  if (start)
    await reconcileSchedules().catch((error: unknown) =>
      logger.error('scheduler schedules not reconciled', { error: error as Error }),
    );
  const result = await runSweepInvocation(start, {
    outOfTime: () => context.getRemainingTimeInMillis() < STOP_BEFORE_END_MS,
  });
  logger.info('retention sweep', {
    sweepId: result.sweep_id,
    complete: result.complete,
    deleted: result.deleted.length,
    failed: result.failed,
  });
  // Only an invocation that swept counts as a run: the "sweep has not run" alarm watches for them.
  if (result.sweep_id !== null)
    recordSweep({ deleted: result.deleted.length, failed: result.failed, sweepId: result.sweep_id });
  return result;
}
