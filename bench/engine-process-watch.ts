/**
 * What the twin's engine processes do, seen from the bench's twin process
 * (bench/import-twin-process.ts) without changing them: child_process.fork is wrapped so that
 * every engine process (shared/engine/isolation/engine-process.ts) also loads
 * bench/engine-child-timing.ts (bundled), and its messages are timed:
 * - its start, from the fork until it says it is ready (span "engine process start");
 * - a task from the moment the parent sends it until its result (span "task <name> → result");
 * - each event of a task from that same moment (span "task <name> → event <kind>");
 * - the engine's DuckDB statements, which the child reports itself (span "<statement>").
 * The spans' clocks are the epoch milliseconds of import-protocol.ts in both processes.
 */
import childProcess, { type ChildProcess, type ForkOptions } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import { engineModuleBundle } from '../infra/local/engine-child-bundle';
import { ENGINE_CHILD_VARIABLE } from '../shared/engine/isolation/engine-child';
import { ENGINE_SPAN } from './engine-span';
import { now, type Span } from './import-protocol';

const CHILD_TIMING = fileURLToPath(new URL('./engine-child-timing.ts', import.meta.url));

/** The span of an engine process's start: fork until it says it is ready for tasks. */
export const ENGINE_PROCESS_START = 'engine process start';

interface Sent {
  readonly task: string;
  readonly at: number;
}

function watch(child: ChildProcess, record: (span: Span) => void): void {
  const forkedAt = now();
  const sent = new Map<number, Sent>();
  const send = child.send.bind(child) as (...args: unknown[]) => boolean;
  child.send = ((...args: unknown[]) => {
    const [message] = args as [{ id?: unknown; task?: unknown }];
    if (typeof message?.id === 'number' && typeof message.task === 'string')
      sent.set(message.id, { task: message.task, at: now() });
    return send(...args);
  }) as ChildProcess['send'];
  child.on('message', (message: { kind?: string; id?: number; span?: Span; event?: { kind?: string } }) => {
    if (message.kind === ENGINE_SPAN && message.span) return record(message.span);
    if (message.kind === 'ready')
      return record({ kind: 'engine', label: ENGINE_PROCESS_START, start: forkedAt, end: now() });
    const task = message.id === undefined ? undefined : sent.get(message.id);
    if (!task) return;
    const label = `task ${task.task}`;
    if (message.kind === 'event')
      record({ kind: 'engine', label: `${label} → event ${message.event?.kind}`, start: task.at, end: now() });
    else if (message.kind === 'result' || message.kind === 'error') {
      record({ kind: 'engine', label: `${label} → ${message.kind}`, start: task.at, end: now() });
      sent.delete(message.id!);
    }
  });
}

/**
 * From now on, every engine process the twin forks reports its work to `record`. The twin's
 * engine processes run plain Node from a bundle (infra/local/engine-child-bundle.ts), which has
 * no loader for TypeScript: the timing module goes in bundled the same way, beside it, so that
 * both load the one DuckDB module (issue 38: `--import` of the .ts ended every engine process
 * before it was ready).
 */
export async function watchEngineProcesses(record: (span: Span) => void): Promise<void> {
  const timing = await engineModuleBundle(CHILD_TIMING);
  const fork = childProcess.fork;
  const watched = (path: string | URL, args?: readonly string[], options?: ForkOptions): ChildProcess => {
    if (options?.env?.[ENGINE_CHILD_VARIABLE] !== '1') return fork(path, args, options);
    const child = fork(path, args, { ...options, execArgv: [...(options.execArgv ?? []), '--import', timing] });
    watch(child, record);
    return child;
  };
  childProcess.fork = watched as typeof childProcess.fork;
  // engine-process.ts imports fork by name: the ES module's binding follows the CommonJS export only once synced.
  syncBuiltinESMExports();
}
