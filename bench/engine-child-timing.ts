/**
 * Loaded into the twin's engine processes by bench/engine-process-watch.ts (`--import`, bundled
 * beside the engine's own bundle): times every DuckDB statement and instance creation of the engine process and sends
 * each as a span to the twin process over the engine's own IPC channel. The engine's parent
 * reads only messages that carry a task's id or say it is ready, so these pass it by.
 */
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { now } from './import-protocol';
import { ENGINE_SPAN, statementLabel, type EngineSpanMessage } from './engine-span';

function send(label: string, start: number): void {
  const message: EngineSpanMessage = { kind: ENGINE_SPAN, span: { kind: 'engine', label, start, end: now() } };
  process.send?.(message);
}

function timed<A extends unknown[], R>(label: (args: A) => string, call: (...args: A) => Promise<R>) {
  return async function timedCall(this: unknown, ...args: A): Promise<R> {
    const start = now();
    try {
      return await call.apply(this, args);
    } finally {
      send(label(args), start);
    }
  };
}

// runAndRead and runAndReadAll go through run: wrapping it times every statement once.
const { run } = DuckDBConnection.prototype;
DuckDBConnection.prototype.run = timed((args: Parameters<typeof run>) => statementLabel(args[0]), run);
const create = DuckDBInstance.create.bind(DuckDBInstance);
DuckDBInstance.create = timed(() => 'DuckDBInstance.create', create);
