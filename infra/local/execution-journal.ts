/**
 * The local Step Functions' memory of running executions across process deaths. AWS keeps an
 * execution going when a caller disappears; the twin runs executions in its own process, so
 * a `kill -9` takes them along. Each running execution is written here when it starts and
 * removed when it ends; the next start of the twin finds what died with the last process and
 * resolves it (see stepfunctions.ts) instead of leaving its job IN_PROGRESS until a watchdog
 * notices.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as z from 'zod';

const Entry = z.object({
  stateMachineArn: z.string(),
  name: z.string(),
  input: z.string(),
  /** How often the twin already restarted this execution after a process death. */
  restarts: z.int().min(0),
});
export type JournalEntry = z.infer<typeof Entry>;

const Journal = z.record(z.string(), Entry);

/** Running executions by ARN, kept in a file (or only in memory when there is none). */
export class ExecutionJournal {
  private readonly entries: Map<string, JournalEntry>;
  private readonly interrupted: ReadonlyMap<string, JournalEntry>;

  constructor(private readonly file: string | undefined) {
    const loaded =
      file !== undefined && existsSync(file) ? Journal.safeParse(JSON.parse(readFileSync(file, 'utf8'))) : undefined;
    this.interrupted = new Map(loaded?.success ? Object.entries(loaded.data) : []);
    // Kept until each is resolved (restarted or failed), so a second death loses none of them.
    this.entries = new Map(this.interrupted);
  }

  /** What was running when the previous process stopped, by execution ARN. */
  takeInterrupted(): ReadonlyMap<string, JournalEntry> {
    return this.interrupted;
  }

  running(executionArn: string, entry: JournalEntry): void {
    this.entries.set(executionArn, entry);
    this.persist();
  }

  ended(executionArn: string): void {
    if (this.entries.delete(executionArn)) this.persist();
  }

  /** Written whole to a temporary file and renamed: a death mid-write leaves the last good journal. */
  private persist(): void {
    if (this.file === undefined) return;
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(this.entries)));
    renameSync(temporary, this.file);
  }
}
