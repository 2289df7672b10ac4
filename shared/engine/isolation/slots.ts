/**
 * At most `size` holders at once; the others wait their turn, in order, unless their signal
 * aborts or their wait runs out first. Engine processes take one each: more of them than the
 * machine has cores only slow every one down (each loads DuckDB and works on its CPU).
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /**
   * Resolves when a slot is held; rejects with the signal's reason if it aborts while waiting,
   * and with SlotWaitExpired when no slot was free within `maxWaitMs` (none free and 0 or less:
   * at once). A wait given up never takes a slot later.
   */
  take(signal?: AbortSignal, maxWaitMs = Infinity): Promise<void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    if (maxWaitMs <= 0) return Promise.reject(new SlotWaitExpired(0));
    return new Promise((resolve, reject) => {
      const leave = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        signal?.removeEventListener('abort', giveUp);
        clearTimeout(timer);
      };
      const turn = () => {
        leave();
        resolve();
      };
      const giveUp = () => {
        leave();
        reject(signal?.reason);
      };
      const expire = () => {
        leave();
        reject(new SlotWaitExpired(maxWaitMs));
      };
      const timer = Number.isFinite(maxWaitMs) ? setTimeout(expire, maxWaitMs) : undefined;
      this.waiting.push(turn);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Whether a take now would wait: every slot is held. */
  get full(): boolean {
    return this.free === 0;
  }

  /** Hands the slot to the next waiting holder, or frees it. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/** Every slot stayed taken for as long as the caller could wait. */
export class SlotWaitExpired extends Error {
  constructor(readonly waitedMs: number) {
    super(`no slot was free within ${waitedMs} ms`);
    this.name = 'SlotWaitExpired';
  }
}
