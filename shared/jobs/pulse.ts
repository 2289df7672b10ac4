import { AppError } from '../errors/app-error';
import type { JobProgress } from '../model/job';
import type { JobRef } from './job-ref';
import { reportProgress } from './status';

/**
 * The longest wait between two heartbeats: a job failed, aborted or timed out meanwhile is
 * seen at the next one (its write is refused) and its worker stops its engine then.
 */
export const MAX_BEAT_MS = 5000;

/**
 * A running job's heartbeat: the latest progress is written every few seconds while the
 * worker lives, and a watchdog aborts the work when the data stops flowing for the job's
 * inactivity limit (10-1047). If a heartbeat write is refused (the job was failed or
 * superseded meanwhile), the work is aborted too.
 */
export class JobPulse {
  private readonly controller = new AbortController();
  private latest: JobProgress;
  private lastActivity = Date.now();
  private readonly timers: NodeJS.Timeout[] = [];
  private watching = false;

  constructor(
    private readonly ref: JobRef,
    private readonly inactivitySeconds: number,
    initial: JobProgress,
  ) {
    this.latest = initial;
    const beat = Math.max(250, Math.min(MAX_BEAT_MS, (inactivitySeconds * 1000) / 4));
    this.timers.push(setInterval(() => void this.beat(), beat));
    this.timers.push(setInterval(() => this.check(), Math.max(100, beat / 2)));
  }

  /** Aborted on inactivity or when the job lost its execution; the reason is the error to raise. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Data moved: the watchdog is satisfied, the next heartbeat carries this progress. */
  progress(progress: JobProgress): void {
    this.latest = progress;
    this.lastActivity = Date.now();
  }

  /** A new stage begins: written at once, so even a short job shows its stages. */
  async stage(progress: JobProgress): Promise<void> {
    this.progress(progress);
    await this.beat();
    this.throwIfAborted();
  }

  /** Only while watched must data keep flowing (reading a source); engine work is not watched. */
  watch(watching: boolean): void {
    this.watching = watching;
    this.lastActivity = Date.now();
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  /** Throws the reason the work was aborted, if it was. */
  throwIfAborted(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  private check(): void {
    if (this.watching && Date.now() - this.lastActivity > this.inactivitySeconds * 1000) {
      this.controller.abort(
        new AppError('10-1047', { extraDetails: { cause: `no data for ${this.inactivitySeconds} s` } }),
      );
    }
  }

  private async beat(): Promise<void> {
    try {
      await reportProgress(this.ref, this.latest);
    } catch (error) {
      if ((error as Error).name === 'Job.Superseded') this.controller.abort(error);
    }
  }
}
