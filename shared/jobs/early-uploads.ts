/**
 * Uploads a worker starts while its engine still works (a run's output files), by name. Each
 * is handled from its start, so that a failure while the others run is no unhandled
 * rejection; `settled` lets a failing step wait for every one of them before its clean-up
 * removes what they wrote.
 */
export class EarlyUploads {
  private readonly uploads = new Map<string, Promise<void>>();

  /** Starts `upload` under `name`; its promise rejects as the upload does. */
  start(name: string, upload: () => Promise<unknown>): Promise<void> {
    const started = upload().then(() => undefined);
    started.catch(() => undefined);
    this.uploads.set(name, started);
    return started;
  }

  /** The upload started under `name`, if one was. */
  started(name: string): Promise<void> | undefined {
    return this.uploads.get(name);
  }

  /** Resolves once every upload started so far has ended, well or not (a failure is thrown where it is awaited). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.uploads.values());
  }
}
