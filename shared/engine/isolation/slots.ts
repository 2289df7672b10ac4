/**
 * At most `size` holders at once; the others wait their turn, in order, unless their signal
 * aborts first. Engine processes take one each: more of them than the machine has cores only
 * slow every one down (each loads DuckDB and works on its CPU).
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves when a slot is held; rejects with the signal's reason if it aborts while waiting. */
  take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      this.waiting.push(turn);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Hands the slot to the next waiting holder, or frees it. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
