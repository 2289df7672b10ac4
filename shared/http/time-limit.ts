import { externalTimeLimitError } from '../connectors/time-limit';
import { AppError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';

/**
 * The time limit of one request: its own abort signal, aborted when the function's time is
 * nearly up, and the answer then. middy's own early time-out is not used: it shares one
 * AbortController among every request of the process, so on the twin (one process serves
 * every request) one request's time-out aborted the work of all the others.
 */
export class RequestTimeLimit {
  private readonly controller = new AbortController();
  private waitingOn: ConnectionType | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `deadline`: when the answer must be given, as Date.now() time; Infinity for none. */
  constructor(readonly deadline: number) {}

  /** Aborts when the time is up, with the answer as its reason. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The request now waits on the external system of a connection of `type`: a time-out from here is that system's. */
  readonly waitOn = (type: ConnectionType): void => {
    this.waitingOn = type;
  };

  /** What `work` gives, or, when the time is up first, the time-out's answer (the signal aborts with it). */
  within<T>(work: Promise<T>): Promise<T> {
    if (!Number.isFinite(this.deadline)) return work;
    return new Promise<T>((resolve, reject) => {
      this.timer = setTimeout(
        () => {
          const answer = this.timedOut();
          this.controller.abort(answer);
          reject(answer);
        },
        Math.max(0, this.deadline - Date.now()),
      );
      work.then(resolve, reject).finally(() => clearTimeout(this.timer));
    });
  }

  /**
   * The external system's time-out code where the request waited on one (the caller's input
   * named it: a 4xx), else 10-500: the service itself was too slow.
   */
  private timedOut(): AppError {
    const external = this.waitingOn === undefined ? undefined : externalTimeLimitError(this.waitingOn);
    return external ?? new AppError('10-500', { extraDetails: { cause: 'the request ran past its time limit' } });
  }
}
