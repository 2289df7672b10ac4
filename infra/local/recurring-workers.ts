import type { WorkerSpec } from '../../shared/jobs/define-job';
import { logger } from '../../shared/log';
import type { WorkerFunction } from './stepfunctions';

/**
 * The twin's stand-in for the EventBridge rules of recurring functions (WorkerSpec.everyMinutes,
 * infra/stacks/jobs-stack.ts): each runs every `everyMs` (its declared rate when omitted; never
 * with false), one run at a time, as deployed. Returns what stops them, waiting for a run in progress.
 */
export function runRecurringWorkers(
  workers: readonly WorkerSpec[],
  load: (worker: WorkerSpec) => Promise<WorkerFunction>,
  everyMs: number | false | undefined,
): () => Promise<void> {
  if (everyMs === false) return async () => undefined;
  const stops = workers
    .filter((worker) => worker.everyMinutes !== undefined)
    .map((worker) => {
      let running: Promise<unknown> | undefined;
      const timer = setInterval(
        () => {
          running ??= load(worker)
            .then((handler) => handler({}, { awsRequestId: `twin-${worker.name}` }))
            .catch((error: unknown) => logger.error('recurring function failed', { worker: worker.name, error }))
            .finally(() => (running = undefined));
        },
        everyMs ?? worker.everyMinutes! * 60_000,
      );
      // A twin with nothing else to do may end: the timer alone does not hold the process.
      timer.unref();
      return async () => {
        clearInterval(timer);
        await running;
      };
    });
  return async () => {
    for (const stop of stops) await stop();
  };
}
