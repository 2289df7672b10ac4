/**
 * CPU time of this process and of the processes it started, read from Linux's /proc: what a job's worker spends
 * in its own process (DuckDB's threads included) and in the engine processes it forks for user SQL
 * (shared/engine/isolation/engine-process.ts), which the process's own clock (process.cpuUsage) does not see.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ENGINE_CHILD_VARIABLE } from '../shared/engine/isolation/engine-child';

/** CPU seconds so far: this process's, and its engine processes' (the running ones and those that ended). */
export interface TreeCpu {
  readonly selfSeconds: number;
  readonly childSeconds: number;
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on every usual kernel). */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    // The process ended between the listing and the read: its time is in the parent's cutime once reaped.
    return undefined;
  }
}

/** Offsets in statFields: field 4 (ppid), 14–15 (utime, stime), 16–17 (cutime, cstime) of proc(5), less 3. */
const PPID = 1;
const UTIME = 11;
const CUTIME = 13;

const seconds = (fields: string[], at: number) => (Number(fields[at]) + Number(fields[at + 1])) / TICKS_PER_SECOND;

/**
 * Whether child `pid` is an engine process (its environment says so), not another child such as tsx's esbuild
 * service, which compiles the bench's TypeScript and has no counterpart in a bundled Lambda.
 */
function isEngineProcess(pid: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${ENGINE_CHILD_VARIABLE}=1`);
  } catch {
    return false;
  }
}

/**
 * This process's CPU (process.cpuUsage: every thread), and its engine processes': those running, from their /proc
 * stat, and those ended and reaped, from this process's cutime and cstime (the only children that end while a job
 * runs). A child that ends between two readings moves from the first sum to the second, so differences of readings
 * stay whole.
 */
export function treeCpu(): TreeCpu {
  const own = process.cpuUsage();
  const self = statFields(String(process.pid));
  let childSeconds = self ? seconds(self, CUTIME) : 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[PPID]) === process.pid && isEngineProcess(entry))
      childSeconds += seconds(fields, UTIME);
  }
  return { selfSeconds: (own.user + own.system) / 1e6, childSeconds };
}

/** CPU spent between two readings. */
export function cpuBetween(start: TreeCpu, end: TreeCpu): TreeCpu {
  return { selfSeconds: end.selfSeconds - start.selfSeconds, childSeconds: end.childSeconds - start.childSeconds };
}
