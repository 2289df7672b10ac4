/**
 * The entry point of every engine job's ECS Fargate task (docs/scale.md, section 1): the task
 * definition names its worker (JOB_WORKER) and the machine hands the job's input in JOB_INPUT;
 * the worker's own Lambda handler does the work (shared/jobs/task-entry.ts), and the process
 * ends with the exit code `ecs:runTask.sync` reads. The twin runs this same module, bundled, as a
 * process of its own (infra/local/ecs.ts).
 *
 * An engine process started by the work is this same bundle forked with DPS_ENGINE_PROCESS
 * set (shared/engine/isolation/engine-process.ts): there it only serves engine tasks.
 */
import { ENGINE_CHILD_VARIABLE } from '../../shared/engine/isolation/engine-child';
import { JOB_WORKER_VARIABLE } from '../../shared/jobs/launch';
import { runJobTask, taskInput } from '../../shared/jobs/task-entry';
import { logger } from '../../shared/log';
import { TASK_WORKERS } from './task-workers';

async function main(): Promise<number> {
  const name = process.env[JOB_WORKER_VARIABLE] ?? '';
  const load = Object.hasOwn(TASK_WORKERS, name) ? TASK_WORKERS[name] : undefined;
  if (!load) throw new Error(`${JOB_WORKER_VARIABLE} names no task worker: "${name}"`);
  const { handler } = await load();
  return runJobTask(handler, taskInput());
}

if (process.env[ENGINE_CHILD_VARIABLE] !== '1') {
  // ECS stops a task with SIGTERM, then SIGKILL: the task's storage goes with it, and the
  // machine's Catch records the stop, so there is nothing to finish here.
  process.once('SIGTERM', () => process.exit(143));
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      logger.error('job task failed', { error: error as Error });
      process.exit(1);
    },
  );
}
