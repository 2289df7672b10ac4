/**
 * The entry point of every engine job's ECS Fargate task (docs/scale.md, section 1): the task
 * definition names its worker (JOB_WORKER) and the machine hands the job's input in JOB_INPUT;
 * the worker's own Lambda handler does the work (shared/jobs/task-entry.ts), and the process
 * ends with the exit code `ecs:runTask.sync` reads. The twin runs this same module, bundled, as a
 * process of its own (infra/local/ecs.ts).
 *
 * An engine process started by the work is this same bundle forked with DPS_ENGINE_PROCESS
 * set (shared/engine/isolation/engine-process.ts): there it only serves engine tasks (the
 * import of engine-child, which serves them, is why it is imported here and not only read).
 */
import { ENGINE_CHILD_VARIABLE } from '../../shared/engine/isolation/engine-child';
import { startJobTask } from '../../shared/jobs/task-entry';
import { TASK_WORKERS } from './task-workers';

if (process.env[ENGINE_CHILD_VARIABLE] !== '1') startJobTask(TASK_WORKERS);
