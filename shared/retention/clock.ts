/**
 * The clock retention reads "now" from: the real one, moved forward only by the local twin
 * (tests move it instead of waiting days; infra/local/twin.ts). Nothing deployed moves it.
 */
let shiftMs = 0;

export function retentionNow(): number {
  return Date.now() + shiftMs;
}

/** Moves the retention clock forward by `ms` (the twin's tests). */
export function advanceRetentionClock(ms: number): void {
  shiftMs += ms;
}

/** Puts the retention clock back to the real time (the twin's close). */
export function resetRetentionClock(): void {
  shiftMs = 0;
}
