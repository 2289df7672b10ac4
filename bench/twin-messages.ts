/**
 * The latency benches' side of the twin child's protocol (protocol.ts): waiting for a message of
 * one type, asking for the twin's stats, the percentile both benches report and the sample interval both give autocannon.
 */
import type { ChildProcess } from 'node:child_process';
import type { ChildMessage, ParentMessage, PhaseStats } from './protocol';

/** The child's next message of `type`; rejected if the child exits first. */
export function nextMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if ((message as ChildMessage).type !== type) return;
      cleanup();
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`the twin process exited (code ${code}) before sending "${type}"`));
    };
    const cleanup = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Sends a reset or stats request and waits for the twin's stats answer. */
export function ask(
  child: ChildProcess,
  message: Extract<ParentMessage, { type: 'reset' | 'stats' }>,
): Promise<PhaseStats> {
  const answer = nextMessage(child, 'stats');
  child.send(message);
  return answer;
}

/** The p-th percentile (nearest rank) of sorted values; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * autocannon's `sampleInt` for a run of `seconds`: it looks at its stop flag only when it takes a
 * sample (every 1000 ms by default), so a run shorter than that lasted a whole second, the smoke
 * run's 0.05 s warm-ups twenty times longer than asked.
 */
export function sampleIntervalFor(seconds: number): number {
  return Math.min(1000, Math.max(10, Math.round(seconds * 1000)));
}
