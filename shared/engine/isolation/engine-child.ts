import { logger } from '../../log';
import { ENGINE_TASKS, isEngineTask } from './tasks';
import { isTaskRequest, toWire, type TaskMessage, type TaskRequest } from './wire';

/**
 * The engine process's side (engine-process.ts): it runs the tasks its parent sends, one at
 * a time, and answers each with its result or failure and the CPU it took. It lives as long
 * as its parent's channel: when the parent goes, so does it.
 */

/** Set in the environment of an engine process; the module serves tasks only where it is. */
export const ENGINE_CHILD_VARIABLE = 'DPS_ENGINE_PROCESS';

function send(message: TaskMessage): void {
  process.send?.(message);
}

async function serve({ id, task, input }: TaskRequest): Promise<void> {
  const before = process.cpuUsage();
  const cpuSeconds = () => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  };
  try {
    if (!isEngineTask(task)) throw new Error(`no engine task ${task}`);
    const emit = (event: unknown) => send({ id, kind: 'event', event });
    const result: unknown = await ENGINE_TASKS[task](input as never, emit);
    send({ id, kind: 'result', result, cpuSeconds: cpuSeconds() });
  } catch (error) {
    const wire = toWire(error);
    if (wire === null) logger.error('engine task failed', { task, error: error as Error });
    send({ id, kind: 'error', error: wire, cpuSeconds: cpuSeconds() });
  }
}

function serveTasks(): void {
  process.on('message', (message: unknown) => {
    if (isTaskRequest(message)) void serve(message);
  });
  process.on('disconnect', () => process.exit(0));
  // Its modules are loaded: a task's time starts when it is sent, not while the process starts.
  send({ kind: 'ready' });
}

// Bundled, this module is part of the function's one file, which the parent starts again as
// its engine process: only there does it serve.
if (process.env[ENGINE_CHILD_VARIABLE] === '1' && process.send) serveTasks();
