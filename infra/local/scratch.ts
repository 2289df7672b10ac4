/**
 * The scratch folders of the twin's job workers. Workers make one folder per step under
 * WORK_DIRECTORY, named after the job (shared/job-workers/worker-step.ts), and remove it when the step
 * ends; a process that dies (kill -9, out of memory) leaves them behind. The twin therefore
 * gives its workers a root of its own and empties it at start, before any job runs: what is
 * there then belongs to no running job. A resumed job runs again from its start, in a new folder.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface TwinScratch {
  /** The workers' WORK_DIRECTORY. */
  readonly root: string;
  /** Folders a previous process left, removed at this start. */
  readonly removed: readonly string[];
  close(): void;
}

/**
 * The scratch root of a twin: with a data folder, a fixed folder under the system's temporary
 * folder named after it (so the next start with that data folder finds it, and engine messages
 * still hide its paths as temporary ones); without, a fresh one removed when the twin closes.
 */
export function openTwinScratch(dataDir: string | undefined): TwinScratch {
  if (dataDir === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'dps-twin-scratch-'));
    return { root, removed: [], close: () => rmSync(root, { recursive: true, force: true }) };
  }
  const root = twinScratchRoot(dataDir);
  mkdirSync(root, { recursive: true });
  const removed = readdirSync(root);
  for (const name of removed) rmSync(join(root, name), { recursive: true, force: true });
  return { root, removed, close: () => undefined };
}

/** Where the twin of `dataDir` keeps its workers' scratch folders. */
export function twinScratchRoot(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `dps-twin-scratch-${id}`);
}
