import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';
import { AppError } from '../../errors/app-error';
import { runsOn } from '../../runs-on';
import { logger } from '../../log';
import { recordEngineSlot } from '../../observability/metrics';
import { ENGINE_CHILD_VARIABLE } from './engine-child';
import { Slots, SlotWaitExpired } from './slots';
import { noteSpentCpu, processCpuSeconds } from './spent-cpu';
import type { EngineTaskName, TaskEvent, TaskInput, TaskOutput } from './tasks';
import { fromWire, type TaskMessage, type TaskRequest } from './wire';

/**
 * User SQL runs in an engine process of its own, which its parent kills when it goes past
 * its memory or its time, or when the work is no longer wanted. DuckDB's memory_limit bounds
 * only its buffer manager: a constant such as `repeat('x', 2e9)` or `range(1e9)` is
 * evaluated outside it while the query is bound, in one call that no interrupt reaches. Only
 * a process boundary bounds that, as a Lambda's memory size bounds the function: here the
 * parent survives, answers with a catalogue code and cleans up (docs/engine-limits.md).
 *
 * Engine processes are kept warm between tasks (a few per process), each running one task at
 * a time, so the process start is paid once, not per request or run.
 */

/** The bounds of one task. */
export interface EngineProcessLimits {
  /** The engine process's resident memory may not go past this. */
  readonly memoryMb: number;
  readonly timeoutMs: number;
  /** The work is no longer wanted: the process is killed and the task fails with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * How long the task may wait for a free engine slot (every core busy): past it the task
   * fails with SlotWaitExpired and nothing of it runs. Unbounded when absent.
   */
  readonly maxWaitMs?: number;
}

/** Why an engine process was stopped before its task ended. */
export type EngineStopReason = 'memory' | 'time' | 'crashed';

/** A task whose engine process was stopped: past its memory or time, or dead on its own. */
export class EngineProcessStopped extends Error {
  constructor(
    readonly reason: EngineStopReason,
    readonly limits: Pick<EngineProcessLimits, 'memoryMb' | 'timeoutMs'>,
  ) {
    super(`engine process stopped (${reason})`);
    this.name = 'EngineProcessStopped';
  }
}

/** What a task answered, and the CPU its engine process spent on it. */
export interface EngineTaskResult<T> {
  readonly result: T;
  readonly cpuSeconds: number;
}

/** Idle processes kept for the next task; more run while tasks overlap, and end with them. */
const MAX_IDLE = 2;
/** How often a running task's memory is read: a process grows by a few hundred MB at most between two reads. */
const MEMORY_POLL_MS = 20;
const PAGE_BYTES = 4096;

const idle: ChildProcess[] = [];
/** Engine processes at work at once, one per core: a task beyond waits for one to end (its time starts when it is sent). */
export const ENGINE_SLOTS = Math.max(2, os.availableParallelism());
const slots = new Slots(ENGINE_SLOTS);
let nextTaskId = 1;

/** A bundle of engine-child.ts that processes started from source run instead of the module itself. */
let childBundle: string | undefined;

/**
 * Has new engine processes run `bundle`, engine-child.ts bundled as a worker is (the local
 * twin's infra/local/engine-child-bundle.ts): from source, each would otherwise load its
 * modules through tsx's loader, about 0.5 s of CPU more per process.
 */
export function useEngineChildBundle(bundle: string): void {
  childBundle = bundle;
}

/** The module an engine process runs: the function's one file when bundled, else the child module or its bundle. */
function childEntry(): { readonly path: string; readonly execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  if (!self.endsWith('.ts')) return { path: self, execArgv: [] };
  if (childBundle !== undefined) return { path: childBundle, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { path: join(dirname(self), 'engine-child.ts'), execArgv: ['--import', tsx] };
}

/**
 * The variables an engine process reads (its engine's memory follows the function's; its
 * logger's level), and the module it runs. It keeps those it was started with: an idle one
 * started with others than this process has now is ended rather than handed a task (a test
 * process runs twins of several settings in turn, and a twin may name another bundle).
 * Nothing else of the environment reaches an engine's work: tasks carry their files, budgets
 * and limits.
 */
const ENGINE_ENVIRONMENT = ['AWS_LAMBDA_FUNCTION_MEMORY_SIZE', 'POWERTOOLS_LOG_LEVEL'] as const;
const engineEnvironment = (): string =>
  [childEntry().path, ...ENGINE_ENVIRONMENT.map((name) => process.env[name] ?? '')].join('\n');
const startedWith = new WeakMap<ChildProcess, string>();

function spawnEngineProcess(): ChildProcess {
  const { path, execArgv } = childEntry();
  const child = fork(path, [], {
    env: { ...process.env, [ENGINE_CHILD_VARIABLE]: '1' },
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A stray error (a kill racing its exit) is seen through 'exit'; it must not reach the process.
  child.on('error', () => undefined);
  startedWith.set(child, engineEnvironment());
  return child;
}

/** How long a new engine process may take to load its modules: far more than it does, even cold on a busy machine. */
const START_TIMEOUT_MS = 30_000;

/**
 * The failure of a task whose engine process could not start (its module failed to load, say):
 * 10-500, with a cause that says so, where a bare 10-500 would leave a job's user and its
 * operator guessing (issue 38). The process's own output (its stderr, the log) has the details.
 */
function engineProcessNotStarted(why: string): AppError {
  return new AppError('10-500', {
    message: 'The engine process could not start',
    extraDetails: { cause: `the engine process could not start: ${why}` },
  });
}

/** A new engine process once it is ready for tasks; an engineProcessNotStarted failure if it ends or stays silent before. */
function started(): Promise<ChildProcess> {
  const child = spawnEngineProcess();
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      child.off('message', onReady);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const failed = (why: string) => {
      settle();
      child.kill('SIGKILL');
      logger.error('an engine process could not start', { why, pid: child.pid });
      reject(engineProcessNotStarted(why));
    };
    const onReady = (message: TaskMessage) => {
      if (!('id' in message) && message.kind === 'ready') {
        settle();
        resolve(child);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      failed(
        signal ? `it was ended by ${signal} before it was ready` : `it exited with code ${code} before it was ready`,
      );
    const onError = (error: Error) => failed(error.message);
    const timer = setTimeout(() => failed(`it was not ready within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.on('message', onReady);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/** An idle process, or a new one once it has started. */
async function acquire(): Promise<ChildProcess> {
  const environment = engineEnvironment();
  for (let child = idle.pop(); child; child = idle.pop()) {
    if (startedWith.get(child) !== environment) child.kill('SIGKILL');
    else if (child.connected && child.exitCode === null && child.signalCode === null) {
      child.ref();
      child.channel?.ref();
      return child;
    }
  }
  return started();
}

/**
 * An engine process that holds more than this after its task (a run that used its memory:
 * what DuckDB frees, the allocator keeps) ends rather than wait idle holding it.
 */
const RECYCLE_ABOVE_MB = 512;

/** Back to the idle ones, holding nothing of the parent's event loop; ended if enough are idle or it holds too much. */
function release(child: ChildProcess): void {
  if (idle.length >= MAX_IDLE || !child.connected) {
    child.kill('SIGKILL');
    return;
  }
  child.unref();
  child.channel?.unref();
  idle.push(child);
  void residentMb(child.pid ?? 0).then((mb) => {
    if (mb === undefined || mb <= RECYCLE_ABOVE_MB) return;
    const at = idle.indexOf(child);
    if (at >= 0) {
      idle.splice(at, 1);
      child.kill('SIGKILL');
    }
  });
}

/** Kills `child` and resolves once it is gone (or after a second, should the exit never be seen). */
function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGKILL');
  });
}

async function residentMb(pid: number): Promise<number | undefined> {
  try {
    const statm = await readFile(`/proc/${pid}/statm`, 'utf8');
    return (Number(statm.split(' ')[1]) * PAGE_BYTES) / 2 ** 20;
  } catch {
    // No procfs (not Linux) or the process is gone: the time limit still holds.
    return undefined;
  }
}

/**
 * Runs `task` on `input` in an engine process within `limits`; `onEvent` hears its events
 * as they come. `input` may still be on its way (a run's downloads): the process is taken,
 * or started, meanwhile, so that a cold start is not added to the task's time, and the
 * task's time limit starts when it is sent. Fails with the input's own failure, with the
 * task's own AppError, with EngineProcessStopped when the process was stopped, with
 * SlotWaitExpired when no slot freed within `limits.maxWaitMs`, or with the signal's reason
 * when the work was abandoned.
 */
export async function runInEngineProcess<K extends EngineTaskName>(
  task: K,
  input: TaskInput<K> | Promise<TaskInput<K>>,
  limits: EngineProcessLimits,
  onEvent: (event: TaskEvent<K>) => void = () => undefined,
): Promise<EngineTaskResult<TaskOutput<K>>> {
  // A handler from the start: an input that fails while a slot is awaited is settled below, not an unhandled rejection.
  const ready = Promise.resolve(input).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await takeSlot(task, limits);
  try {
    const [child, prepared] = await Promise.all([acquire(), ready]);
    if ('error' in prepared || limits.signal?.aborted) {
      release(child);
      throw 'error' in prepared ? prepared.error : limits.signal?.reason;
    }
    return await runOn(child, task, prepared.value, limits, onEvent);
  } finally {
    slots.give();
  }
}

/** Takes a slot for `task`, and writes how long it waited and whether it was refused one (docs/operations.md). */
async function takeSlot(task: EngineTaskName, limits: EngineProcessLimits): Promise<void> {
  const queued = slots.full;
  const asked = performance.now();
  const record = (refused: boolean) =>
    recordEngineSlot({ task, waitMs: Math.round(performance.now() - asked), queued, refused, ranOn: runsOn() });
  try {
    await slots.take(limits.signal, limits.maxWaitMs);
  } catch (error) {
    // A wait the caller abandoned (its signal) is a wait, not a refusal.
    record(error instanceof SlotWaitExpired);
    throw error;
  }
  record(false);
}

function runOn<K extends EngineTaskName>(
  child: ChildProcess,
  task: K,
  input: TaskInput<K>,
  limits: EngineProcessLimits,
  onEvent: (event: TaskEvent<K>) => void,
): Promise<EngineTaskResult<TaskOutput<K>>> {
  const id = nextTaskId++;
  const cpuAtStart = processCpuSeconds(child.pid);
  return new Promise<EngineTaskResult<TaskOutput<K>>>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(watch);
      child.off('message', onMessage);
      child.off('exit', onExit);
      limits.signal?.removeEventListener('abort', onAbort);
      if (keep) {
        release(child);
        outcome();
      } else {
        // The caller removes the task's folders next: nothing may write there any more.
        void killed(child).then(outcome);
      }
    };
    const stop = (error: unknown) => {
      // Read before the kill: what the task spent until it was stopped still counts (spent-cpu.ts).
      const cpuNow = processCpuSeconds(child.pid);
      if (!settled && cpuAtStart !== undefined && cpuNow !== undefined) noteSpentCpu(error, cpuNow - cpuAtStart);
      finish(() => reject(error), false);
    };
    const onMessage = (message: TaskMessage) => {
      if (!('id' in message) || message.id !== id) return;
      if (message.kind === 'event') onEvent(message.event as TaskEvent<K>);
      else if (message.kind === 'result') {
        finish(() => resolve({ result: message.result as TaskOutput<K>, cpuSeconds: message.cpuSeconds }), true);
      } else finish(() => reject(fromWire(message.error, `engine task ${task} failed`)), true);
    };
    const onExit = () => stop(new EngineProcessStopped('crashed', limits));
    const onAbort = () => stop(limits.signal?.reason);
    const deadline = setTimeout(() => stop(new EngineProcessStopped('time', limits)), limits.timeoutMs);
    const watch = setInterval(() => {
      void residentMb(child.pid ?? 0).then((mb) => {
        if (mb !== undefined && mb > limits.memoryMb) stop(new EngineProcessStopped('memory', limits));
      });
    }, MEMORY_POLL_MS);
    child.on('message', onMessage);
    child.once('exit', onExit);
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    const request: TaskRequest = { id, task, input };
    child.send(request, (error) => {
      if (error) stop(new EngineProcessStopped('crashed', limits));
    });
  });
}
