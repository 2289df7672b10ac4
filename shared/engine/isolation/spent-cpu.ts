import { readFileSync } from 'node:fs';

/**
 * The CPU an engine task spent before it was stopped (aborted, cancelled, out of time or
 * memory). A finished task reports its own CPU seconds in its answer; a stopped one cannot,
 * so its process's counters are read by its parent before the kill and carried beside the
 * error the task stopped with, for the job to count them in the tenant's usage all the same.
 */
const spentBy = new WeakMap<object, number>();

/** Linux's clock tick (sysconf CLK_TCK), 100 on every platform Lambda, Fargate and the twin run on. */
const TICKS_PER_SECOND = 100;

/**
 * The user and system CPU seconds process `pid` has used so far, from /proc/<pid>/stat;
 * undefined where there is no such file (another OS, or the process is gone).
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime and stime, fields 14 and 15
    return Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Adds `seconds` of engine CPU to what `error` carries (one reason may stop several tasks). */
export function noteSpentCpu(error: unknown, seconds: number): void {
  if (typeof error !== 'object' || error === null || !(seconds > 0)) return;
  spentBy.set(error, (spentBy.get(error) ?? 0) + seconds);
}

/** The engine CPU seconds the tasks `error` stopped had spent; 0 when it stopped none. */
export function spentCpuOf(error: unknown): number {
  return typeof error === 'object' && error !== null ? (spentBy.get(error) ?? 0) : 0;
}
