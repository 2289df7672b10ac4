/**
 * Where a bench section's twin runs. `npm run bench` forks each section's twin script
 * (twin-process.ts, import-twin-process.ts, cost-twin-process.ts, cost-jobs-twin-process.ts)
 * into a process of its own, so that the twin's CPU is measured apart from the load on it.
 *
 * A smoke run (bench/settings.ts) runs the same scripts in this process instead: a twin
 * process spends about 4 s of CPU loading the modules this process has already loaded (an
 * in-process start costs about 0.4 s), and the smoke's seven of them were most of its cost
 * (issue 38). The script is unchanged and so is the section's side: the script's
 * `process.send`, `process.on('message' | 'disconnect')` and `process.exit` are served by an
 * emulated child, whose messages go through JSON as a fork's IPC channel sends them. What the
 * smoke then prints of the twin's CPU includes the bench's own: its numbers mean nothing, as
 * a smoke run's never do. While a script runs so, a `process.exit` of this process's own ends
 * that script, not the process: a smoke run is the suite's, never interrupted by hand.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { logger } from '../shared/log';

let inProcess = false;

/** Whether the twin scripts started from now on run in this process (a smoke run's) or forked. */
export function runTwinsInProcess(enabled: boolean): void {
  inProcess = enabled;
}

/** Starts the twin script `script` forked with `options`, or in this process (runTwinsInProcess). */
export function forkTwin(script: URL, options: ForkOptions): ChildProcess {
  if (!inProcess) return fork(fileURLToPath(script), [], options);
  // The sections use only the part of ChildProcess an InProcessTwin has (messages, exit, kill).
  return new InProcessTwin(script, options) as unknown as ChildProcess;
}

/** A fork's IPC channel sends JSON (its default serialization): what cannot cross it does not cross here. */
const overIpc = (message: unknown): unknown =>
  message === undefined ? undefined : (JSON.parse(JSON.stringify(message)) as unknown);

/** Each start evaluates the script anew (a module runs once per URL). */
let starts = 0;
/** The script of the one in-process twin that may run at a time: a script talks to "its parent" through `process`. */
let running: string | undefined;

/**
 * The child side of a fork, played in this process: the script's `process.send` reaches this
 * object's 'message' listeners, this object's `send` reaches the script's `process.on('message')`,
 * and the script's `process.exit(code)` ends it ('exit', 'close') without ending this process.
 */
class InProcessTwin extends EventEmitter {
  exitCode: number | null = null;
  readonly signalCode: NodeJS.Signals | null = null;
  connected = true;
  readonly pid = process.pid;
  /** What this object replaced or added, put back when the script exits. */
  private readonly restore: (() => void)[] = [];

  constructor(script: URL, options: ForkOptions) {
    super();
    if (running !== undefined) throw new Error(`an in-process twin (${running}) is still running`);
    running = script.href;
    this.takeOver(options);
    starts += 1;
    import(`${script.href}?in-process=${starts}`).catch((error: unknown) => {
      console.error(error);
      this.end(1);
    });
  }

  /**
   * Gives the script its "parent": process.send and process.exit, the variables it was started
   * with, its log level (this process's logger was made before run.ts set it) and its stdout.
   */
  private takeOver({ env, stdio }: ForkOptions): void {
    const { send, exit } = process;
    const listeners = {
      message: new Set(process.listeners('message')),
      disconnect: new Set(process.listeners('disconnect')),
    };
    process.send = (message: unknown): boolean => {
      const sent = overIpc(message);
      setImmediate(() => this.emit('message', sent));
      return true;
    };
    process.exit = ((code?: number | string | null) => this.end(Number(code ?? 0))) as typeof process.exit;
    this.restore.push(() => {
      process.send = send;
      process.exit = exit;
      // The script's listeners go with it: the next script's messages are not its.
      for (const listener of process.listeners('message'))
        if (!listeners.message.has(listener)) process.off('message', listener);
      for (const listener of process.listeners('disconnect'))
        if (!listeners.disconnect.has(listener)) process.off('disconnect', listener);
    });
    // Kept after the script exits: a worker the section ran here may still log (run.ts meant SILENT for all).
    const level = (env ?? process.env).POWERTOOLS_LOG_LEVEL;
    if (level !== undefined) logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
    // A forked twin's stdout goes to stderr, so that stdout carries only the report.
    if (Array.isArray(stdio) && stdio[1] === 2) {
      const write = process.stdout.write;
      process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
      this.restore.push(() => (process.stdout.write = write));
    }
    // Only what the section set apart from this process's own (the twin's temporary folder).
    for (const [name, value] of Object.entries(env ?? {})) {
      if (value === undefined || process.env[name] === value) continue;
      const before = process.env[name];
      process.env[name] = value;
      this.restore.push(() => {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      });
    }
  }

  /** As ChildProcess.send: the script's `process.on('message')` listeners get it on a later turn. */
  send(message: unknown): boolean {
    if (!this.connected) throw new Error('the in-process twin has exited: its channel is closed');
    const sent = overIpc(message);
    setImmediate(() => process.emit('message', sent, undefined));
    return true;
  }

  /**
   * As ChildProcess.kill, as far as a script in this process can be ended: its channel closes
   * ('disconnect', on which twin-child.ts's scripts close their twin and exit). A script that
   * does not listen for it is left to its own exit.
   */
  kill(): boolean {
    if (!this.connected) return false;
    this.connected = false;
    setImmediate(() => process.emit('disconnect'));
    return true;
  }

  /** The script exited (process.exit, or its import failed): hand `process` back, then say so. */
  private end(code: number): void {
    if (this.exitCode !== null) return;
    running = undefined;
    this.connected = false;
    for (const undo of this.restore.reverse()) undo();
    this.exitCode = code;
    setImmediate(() => {
      this.emit('exit', code, null);
      this.emit('close', code, null);
    });
  }
}
