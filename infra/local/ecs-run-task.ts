/**
 * The twin's Step Functions side of `arn:aws:states:::ecs:runTask.sync` (infra/fargate-branch.ts),
 * as Step Functions does it against ECS: RunTask with the state's Parameters (PascalCase in ASL,
 * camelCase on the wire), then DescribeTasks until the task has STOPPED; the state succeeds with
 * the task when its container exited with 0 and fails with States.TaskFailed, the task as its
 * Cause, otherwise. Stopping the execution, or the state's TimeoutSeconds, stops the task
 * (StopTask). All of it over the AWS JSON protocol of the local ECS (infra/local/ecs.ts).
 */
import { jsonProtocolCall, type JsonProtocolService, type JsonValue } from './json-protocol';

/** How often the state looks at its task: Step Functions follows it by events; the twin by polling. */
const POLL_MS = 200;

type Json = JsonValue;

/** Keys of an object tree with their first letter changed: ASL's PascalCase to the API's camelCase, and back. */
function rekey(value: Json, change: (key: string) => string): Json {
  if (Array.isArray(value)) return value.map((item) => rekey(item, change));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [change(key), rekey(item, change)]));
}
const camel = (key: string) => key.charAt(0).toLowerCase() + key.slice(1);
const pascal = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

const SERVICE: JsonProtocolService = {
  targetPrefix: 'AmazonEC2ContainerServiceV20141113',
  errorPrefix: 'ECS',
  defaultErrorType: 'AmazonECSException',
};
const ecsCall = (endpoint: string, operation: string, input: Json) =>
  jsonProtocolCall(endpoint, SERVICE, operation, input);

/** Stops the task; a task already gone has nothing to stop. */
export async function stopLocalTask(endpoint: string, taskArn: string, reason: string): Promise<void> {
  await ecsCall(endpoint, 'StopTask', { task: taskArn, reason }).catch(() => undefined);
}

/** Stops every running task an execution started (its name is the tasks' startedBy). */
export async function stopTasksStartedBy(endpoint: string, startedBy: string, reason: string): Promise<void> {
  const { taskArns } = await ecsCall(endpoint, 'ListTasks', { startedBy, desiredStatus: 'RUNNING' });
  await Promise.all(((taskArns as string[] | null) ?? []).map((arn) => stopLocalTask(endpoint, arn, reason)));
}

export interface RunTaskSyncOptions {
  /** The execution's name: the task's startedBy, by which stopping the execution finds it. */
  readonly startedBy: string;
  /** The state's TimeoutSeconds: past it, the task is stopped and the state fails with States.Timeout. */
  readonly timeoutSeconds?: number;
}

/** One `ecs:runTask.sync` state: its Parameters in, the stopped task out (PascalCase, as Step Functions answers). */
export async function runTaskSync(endpoint: string, parameters: Json, options: RunTaskSyncOptions): Promise<Json> {
  const request: Record<string, Json> = {
    ...(rekey(parameters, camel) as Record<string, Json>),
    startedBy: options.startedBy,
  };
  const started = await ecsCall(endpoint, 'RunTask', request);
  const taskArn = String((started.tasks as { taskArn: string }[])[0]!.taskArn);
  const deadline = options.timeoutSeconds === undefined ? Infinity : Date.now() + options.timeoutSeconds * 1000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (Date.now() > deadline) {
      await stopLocalTask(endpoint, taskArn, 'States.Timeout: the state ran past its TimeoutSeconds');
      throw Object.assign(new Error('The state timed out'), { name: 'States.Timeout' });
    }
    const { tasks } = await ecsCall(endpoint, 'DescribeTasks', { cluster: request.cluster ?? null, tasks: [taskArn] });
    const task = (tasks as Record<string, Json>[])[0];
    if (!task) throw Object.assign(new Error(`task ${taskArn} is missing`), { name: 'States.TaskFailed' });
    if (task.lastStatus !== 'STOPPED') continue;
    const described = rekey(task, pascal);
    const containers = (task.containers as { exitCode?: number }[] | null) ?? [];
    if (containers.length > 0 && containers.every((container) => container.exitCode === 0)) return described;
    throw Object.assign(new Error(JSON.stringify(described)), { name: 'States.TaskFailed' });
  }
}
