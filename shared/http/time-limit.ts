import { AppError } from '../errors/app-error';

/**
 * The time limit of one request: its own abort signal, aborted when the function's time is
 * nearly up, and the answer then. middy's own early time-out is not used: it shares one
 * AbortController among every request of the process, so on the twin (one process serves
 * every request) one request's time-out aborted the work of all the others.
 */
export class RequestTimeLimit {
  private readonly controller = new AbortController();
  private externalTimeOut: AppError | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `deadline`: when the answer must be given, as Date.now() time; Infinity for none. */
  constructor(readonly deadline: number) {}

  /** Aborts when the time is up, with the answer as its reason. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * The request now waits on an external system: a time-out from here answers `timeOut`, that
   * system's own time-out code (shared/connectors/time-limit.ts), where it has one.
   */
  readonly waitOn = (timeOut: AppError | undefined): void => {
    this.externalTimeOut = timeOut;
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
    return (
      this.externalTimeOut ?? new AppError('10-500', { extraDetails: { cause: 'the request ran past its time limit' } })
    );
  }
}
