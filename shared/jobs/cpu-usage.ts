import { spentCpuOf } from '../engine/isolation/spent-cpu';
import { logger } from '../log';
import { recordUsage } from '../usage';
import { settleAll } from './settle';

/** What a counted work answers: its value and the CPU seconds spent outside the worker's process (an engine process's). */
export interface CountedWork<T> {
  readonly value: T;
  readonly elsewhereCpuSeconds: number;
}

/**
 * Runs `work`, then the writes `store` starts with its result and CPU seconds, and counts the
 * CPU time of the work in the tenant's daily usage, whether it succeeds or fails: the worker's
 * own (the end of the inputs' download included) and what the work reports of its engine
 * process. The usage is written together with the result.
 */
export async function withCpuCounted<T>(
  tenantId: string,
  work: () => Promise<CountedWork<T>>,
  store: (value: T, cpuSeconds: number) => Promise<void>[],
): Promise<{ readonly result: T; readonly cpuSeconds: number }> {
  const before = process.cpuUsage();
  const ownSeconds = () => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  };
  let cpuSeconds: number | undefined;
  try {
    const { value, elsewhereCpuSeconds } = await work();
    cpuSeconds = ownSeconds() + elsewhereCpuSeconds;
    await settleAll([recordUsage(tenantId, 'CPU_SECONDS', cpuSeconds), ...store(value, cpuSeconds)]);
    return { result: value, cpuSeconds };
  } catch (error) {
    // Once the work is done, its usage was written beside the result (or its write failed, and is not tried twice).
    if (cpuSeconds !== undefined) throw error;
    // A stopped engine task could not report its CPU; its parent read it before the kill.
    await recordUsage(tenantId, 'CPU_SECONDS', ownSeconds() + spentCpuOf(error)).catch((usage: unknown) =>
      logger.warn('CPU usage of a failed run not recorded', { error: usage as Error }),
    );
    throw error;
  }
}
