/**
 * Peak resident memory of processes, from Linux's /proc: VmHWM, the high-water mark of a
 * process's resident set since it started. The twin's engine processes are kept warm after a
 * run, so after the run their mark is the run's peak (or an earlier task's, when larger).
 */
import { readdir, readFile } from 'node:fs/promises';

/** VmHWM of process `pid` in MB, or undefined when it is gone or /proc is not there. */
export async function peakRssMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kilobytes === undefined ? undefined : Number(kilobytes) / 1024;
  } catch {
    return undefined;
  }
}

/** The parent of process `pid` (the fourth field of /proc/<pid>/stat, after the command in parentheses). */
async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The largest VmHWM (MB) among the child processes of `parent`; undefined when it has none or /proc is not there. */
export async function childrenPeakRssMb(parent: number | undefined): Promise<number | undefined> {
  if (parent === undefined) return undefined;
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const pids = entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
  const children = (await Promise.all(pids.map(async (pid) => ((await parentOf(pid)) === parent ? pid : 0)))).filter(
    (pid) => pid > 0,
  );
  const peaks = (await Promise.all(children.map(peakRssMb))).filter((mb): mb is number => mb !== undefined);
  return peaks.length === 0 ? undefined : Math.max(...peaks);
}
